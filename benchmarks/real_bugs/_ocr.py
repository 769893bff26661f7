"""Pieces the batch-222 cases (text recognition / handwriting with CTC) share, on top of the
batch-176 line generator: "line images" of 8x8 digits written side by side, turned into
(B, 1, 8, W) images or (W, B, 8) column frames, the labels shifted by one so that 0 is CTC's
blank, a small CRNN (convolution over the line image, one feature vector per image column,
a bidirectional GRU, a linear read-out per column), greedy CTC decoding and the held-out
line accuracy (share of held-out lines whose decoding spells every digit exactly).

Held-out lines are built from digits the training never shows.
"""
import torch
from torch import nn

from benchmarks.real_bugs._ctc176 import (BLANK, digits, greedy_decode, held_out_lines,
                                          line_accuracy, make_lines, training_lines)

__all__ = ["BLANK", "digits", "greedy_decode", "held_out_lines", "line_accuracy",
           "make_lines", "training_lines", "frames_to_images", "CRNN"]


def frames_to_images(frames):
    """(W, B, 8) column frames -> (B, 1, 8, W) line images."""
    return frames.permute(1, 2, 0).unsqueeze(1)


class CRNN(nn.Module):
    """Convolution over the whole line height (kernel 8 x 3), giving a (B, C, 1, W) feature
    map: one C-vector per image column; ``to_sequence`` turns it into the GRU's time-major
    (T, B, features) input; a linear read-out per step: (T, B, labels)."""

    def __init__(self, channels=24, hidden=64, labels=11, width=24, to_sequence=None):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(1, channels, (8, 3), padding=(0, 1)), nn.ReLU())
        self.to_sequence = to_sequence or (lambda f: f.squeeze(2).permute(2, 0, 1))
        features = self.to_sequence(torch.zeros(1, channels, 1, width)).shape[-1]
        self.rnn = nn.GRU(features, hidden, bidirectional=True)
        self.out = nn.Linear(2 * hidden, labels)

    def forward(self, images):
        return self.out(self.rnn(self.to_sequence(self.conv(images)))[0])
