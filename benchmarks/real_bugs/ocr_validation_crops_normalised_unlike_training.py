"""A CTC text recogniser whose validation crops are normalised differently from its
training crops: training maps the 0..255 grey levels to [-1, 1] (x / 128 - 1), the
validation code (left over from an experiment) maps them to [0, 1] (x / 255). The model
never sees inputs on the validation scale, so the validation loss and the validation
transcripts judge a network fed shifted, half-contrast images; the same weights give
different predictions on the same picture in training and in validation.

Reported: "different cropped-image normalization in validation and train" -
https://github.com/MichalBusta/DeepTextSpotter/issues/19 ("the cropped image that enters
the second network (CTC) is being normalized differently in train and in validation ...
I get different predictions on the same picture using the same weights"; the author: "the
same normalization should be used in valid/train phase, '/128 - 1' has been used").
Here a CRNN (a convolution spanning the line height, one 24-channel vector per image
column, a bidirectional GRU, a linear read-out per column, CTC with blank = 0) reads lines
of three 8x8 digits as 0..255 grey levels; every 25 steps the validation CTC loss on
held-out lines (digits the training never shows) is passed to the monitor, and at the end
the held-out lines are decoded greedily through the validation preprocessing. Fix: give
the validation crops the training normalisation, x / 128 - 1.

**Measured** (250 steps): held-out line accuracy 0.02 for the bug against 0.82 for the
fixed twin at seed 0; seeds + 1000: 0.04 vs 0.86.
"""
import torch
from torch import nn

from benchmarks.real_bugs._ocr import (CRNN, digits, frames_to_images, greedy_decode,
                                       held_out_lines, line_accuracy, training_lines)

TITLE = "different cropped-image normalization in validation and train"
LINK = "https://github.com/MichalBusta/DeepTextSpotter/issues/19"
EXPECTED = ("VALIDATION_INPUTS_RESCALED",)
STEPS = 250
LR = 1e-2
EPOCH = 25


def train_crops(frames):
    return frames_to_images(frames) / 128 - 1


def run(fixed=False, steps=STEPS, **watch):
    import nndebug as nd
    torch.manual_seed(0)
    train_x, train_y, test_x, test_y = digits()
    train_x, test_x = (train_x * 255).round(), (test_x * 255).round()   # uint8 grey levels

    def valid_crops(frames):
        if fixed:
            return train_crops(frames)
        return frames_to_images(frames) / 255          # BUG (fixed=False): another scale

    model = CRNN(channels=24, width=24)
    optimizer = torch.optim.Adam(model.parameters(), lr=LR)
    ctc = nn.CTCLoss(blank=0)
    val_frames, val_lengths, val_targets, val_target_lengths = held_out_lines(test_x, test_y)
    with nd.watch(model, optimizer, **watch) as mon:
        for done, (frames, frame_lengths, targets, target_lengths) in enumerate(
                training_lines(train_x, train_y, steps), start=1):
            optimizer.zero_grad()
            scores = model(train_crops(frames))
            loss = ctc(scores.log_softmax(dim=2), targets, frame_lengths, target_lengths)
            loss.backward()
            optimizer.step()
            val_loss = None
            if done % EPOCH == 0 or done == steps:
                model.eval()
                with torch.no_grad():
                    val_loss = ctc(model(valid_crops(val_frames)).log_softmax(dim=2),
                                   val_targets, val_lengths, val_target_lengths)
                model.train()
            mon.step(loss, val_loss=val_loss)
    model.eval()
    with torch.no_grad():
        decoded = greedy_decode(model(valid_crops(val_frames)), val_lengths)
    mon.held_out_line_accuracy = line_accuracy(decoded, val_targets, val_target_lengths)
    return mon
