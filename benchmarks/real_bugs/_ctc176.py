"""Pieces the batch-176 cases (speech-style recognition trained with CTC) share: "lines" of
8x8 digits written side by side and read column by column (one frame of 8 pixels per
column, time-major), the labels shifted by one so that 0 is CTC's blank, a small
bidirectional-GRU recogniser, greedy CTC decoding, and the held-out line accuracy (share of
held-out lines whose greedy decoding spells every digit exactly).

Digits 0..TRAIN_DIGITS-1 build the training lines, the rest the held-out lines.
"""
import numpy as np
import torch
from torch import nn

from benchmarks.real_bugs._common import classification

TRAIN_DIGITS = 1500
HELD_OUT_LINES = 300
BLANK = 0


def digits():
    """(train images (N, 8, 8), train labels, held-out images, held-out labels)."""
    x, y = classification()
    images = x.reshape(-1, 8, 8)
    return images[:TRAIN_DIGITS], y[:TRAIN_DIGITS], images[TRAIN_DIGITS:], y[TRAIN_DIGITS:]


def make_lines(images, labels, rng, count, min_digits=3, max_digits=3, pad_frames=0):
    """``count`` lines of ``min_digits..max_digits`` digits: frames (T, count, 8) zero-padded
    to T = 8 * max_digits + pad_frames, frame lengths (count,), targets (count, max_digits)
    padded with 0 after each line's labels (label = digit + 1), target lengths (count,)."""
    width = 8 * max_digits + pad_frames
    frames = torch.zeros(width, count, 8)
    targets = torch.zeros(count, max_digits, dtype=torch.long)
    n = torch.from_numpy(rng.integers(min_digits, max_digits + 1, count))
    for row in range(count):
        k = int(n[row])
        pick = torch.from_numpy(rng.integers(0, len(images), k))
        line = torch.cat([images[i] for i in pick.tolist()], dim=1)   # (8, 8k)
        frames[:8 * k, row] = line.t()
        targets[row, :k] = labels[pick] + 1
    return frames, 8 * n, targets, n


def training_lines(images, labels, steps, batch_size=32, seed=0, **shape):
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        yield make_lines(images, labels, rng, batch_size, **shape)


def held_out_lines(images, labels, seed=1, **shape):
    return make_lines(images, labels, np.random.default_rng(seed), HELD_OUT_LINES, **shape)


class FrameRecogniser(nn.Module):
    """Bidirectional GRU over the frames, a linear read-out per frame: (T, B, labels)."""

    def __init__(self, features=8, hidden=64, labels=11):
        super().__init__()
        self.rnn = nn.GRU(features, hidden, bidirectional=True)
        self.out = nn.Linear(2 * hidden, labels)

    def forward(self, frames):
        return self.out(self.rnn(frames)[0])


def greedy_decode(scores, lengths, blank=BLANK):
    """Best path of (T, B, C) scores: argmax per frame over the first ``lengths[b]`` frames,
    repeats merged, blanks removed; a list of label lists."""
    best = scores.argmax(dim=2).t().tolist()
    decoded = []
    for path, length in zip(best, lengths.tolist()):
        out, previous = [], None
        for label in path[:length]:
            if label != previous and label != blank:
                out.append(label)
            previous = label
        decoded.append(out)
    return decoded


def line_accuracy(decoded, targets, target_lengths):
    """Share of lines decoded exactly."""
    hits = sum(d == t[:n] for d, t, n in zip(decoded, targets.tolist(), target_lengths.tolist()))
    return hits / len(decoded)
