"""A CRNN whose convolutional feature map (batch, channels, 1, width) is handed to the
recurrent layer with the CHANNEL axis as time: the GRU walks over the feature channels and
reads, at each "step", one channel's values across all the image columns, instead of walking
along the line and reading one column's feature vector per step. Nothing crashes (the
sequence has the right length because there are as many channels as columns), CTC still
trains and the loss falls, but the per-step outputs are no longer tied to positions on the
line and the transcripts are poor.

Reported: "Some problems aboult this code" -
https://github.com/watsonyanghx/CNN_LSTM_CTC_Tensorflow/issues/8 (in cnn_lstm_otc_ocr.py,
after the CNN, "x.set_shape([FLAGS.batch_size, filters[3], 24])": "the time sequence should
be the width which will be feed to the LSTM, but the code is the length of channels";
another commenter says there are "some bugs in this code ... between CNN --> RNN").
Here a CRNN reads lines of three 8x8 digits (24 columns): a convolution spanning the line
height gives 24 channels per column, a bidirectional GRU and a linear read-out per step,
CTC (blank = 0); held-out lines are made of digits the training never shows and decoded
greedily. Fix: permute the feature map to (width, batch, channels), time = image columns.

**Measured** (250 steps): held-out line accuracy 0.02 for the bug against 0.77 for the
fixed twin at seed 0; seeds + 1000: 0.00 vs 0.79.
"""
import torch
from torch import nn

from benchmarks.real_bugs._ocr import (CRNN, digits, frames_to_images, greedy_decode,
                                       held_out_lines, line_accuracy, training_lines)

TITLE = "Some problems aboult this code"
LINK = "https://github.com/watsonyanghx/CNN_LSTM_CTC_Tensorflow/issues/8"
EXPECTED = ("LAYOUT_NOT_TRANSPOSED",)
STEPS = 250
LR = 1e-2


def run(fixed=False, steps=STEPS, **watch):
    import nndebug as nd
    torch.manual_seed(0)
    train_x, train_y, test_x, test_y = digits()
    if fixed:
        to_sequence = lambda f: f.squeeze(2).permute(2, 0, 1)      # (W, B, C): time = columns
    else:
        to_sequence = lambda f: f.squeeze(2).permute(1, 0, 2)      # BUG: (C, B, W): time = channels
    model = CRNN(channels=24, width=24, to_sequence=to_sequence)
    optimizer = torch.optim.Adam(model.parameters(), lr=LR)
    ctc = nn.CTCLoss(blank=0)
    with nd.watch(model, optimizer, **watch) as mon:
        for frames, frame_lengths, targets, target_lengths in training_lines(
                train_x, train_y, steps):
            optimizer.zero_grad()
            scores = model(frames_to_images(frames))
            loss = ctc(scores.log_softmax(dim=2), targets, frame_lengths, target_lengths)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    frames, frame_lengths, targets, target_lengths = held_out_lines(test_x, test_y)
    model.eval()
    with torch.no_grad():
        decoded = greedy_decode(model(frames_to_images(frames)), frame_lengths)
    mon.held_out_line_accuracy = line_accuracy(decoded, targets, target_lengths)
    return mon
