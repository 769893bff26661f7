"""A CRNN text recogniser trained on line images whose pixel intensities were never scaled:
the uint8 values 0..255 go straight into the convolution, so the first layer's outputs are
two orders of magnitude larger than with inputs in [0, 1], the recurrent layer's gates
saturate and the optimiser's first steps are far too large for that scale. Nothing crashes,
CTC's loss falls (emitting blanks is already cheaper), but the recogniser learns much worse
transcripts in the same budget.

Reported: "Scaling input data between 0 and 1" - https://github.com/Belval/CRNN/issues/62
("The pixel intensities of input data are not scaled between 0 and 1. Is there a specific
reason for not doing this?" - the maintainer: "No, this is simply an oversight", fixed in
PR #63). Here a CRNN (a convolution spanning the line height, one 24-channel vector per
image column, a bidirectional GRU, a linear read-out per column, CTC with blank = 0) reads
lines of three 8x8 digits rendered as 0..255 grey levels; held-out lines are made of digits
the training never shows and decoded greedily. Fix: divide the pixels by 255 (here for the
training and the held-out lines alike).

**Measured** (250 steps): held-out line accuracy 0.54 for the bug against 0.73 for the
fixed twin at seed 0; seeds + 1000: 0.42 vs 0.75.
"""
import torch
from torch import nn

from benchmarks.real_bugs._ocr import (CRNN, digits, frames_to_images, greedy_decode,
                                       held_out_lines, line_accuracy, training_lines)

TITLE = "Scaling input data between 0 and 1"
LINK = "https://github.com/Belval/CRNN/issues/62"
EXPECTED = ("UNNORMALIZED_INPUTS",)
STEPS = 250
LR = 1e-2


def run(fixed=False, steps=STEPS, **watch):
    import nndebug as nd
    torch.manual_seed(0)
    train_x, train_y, test_x, test_y = digits()
    train_x, test_x = (train_x * 255).round(), (test_x * 255).round()   # uint8 grey levels

    def pixels(frames):
        images = frames_to_images(frames)
        return images / 255 if fixed else images     # BUG (fixed=False): left at 0..255

    model = CRNN(channels=24, width=24)
    optimizer = torch.optim.Adam(model.parameters(), lr=LR)
    ctc = nn.CTCLoss(blank=0)
    with nd.watch(model, optimizer, **watch) as mon:
        for frames, frame_lengths, targets, target_lengths in training_lines(
                train_x, train_y, steps):
            optimizer.zero_grad()
            scores = model(pixels(frames))
            loss = ctc(scores.log_softmax(dim=2), targets, frame_lengths, target_lengths)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    frames, frame_lengths, targets, target_lengths = held_out_lines(test_x, test_y)
    model.eval()
    with torch.no_grad():
        decoded = greedy_decode(model(pixels(frames)), frame_lengths)
    mon.held_out_line_accuracy = line_accuracy(decoded, targets, target_lengths)
    return mon
