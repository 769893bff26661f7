"""Shared pieces of real-bug batch 337 (state-space and linear-recurrence sequence models
written by hand from first tutorials): the 8x8 digits read as sequences of 8 rows of 8
pixels (a classifier that reads its last step must carry the earlier rows in its state),
the sonnets cut into training and held-out text, and held-out metrics."""
import numpy as np
import torch

from benchmarks.real_bugs._common import characters
from benchmarks.real_bugs._reg169 import split


def row_sequences():
    """(x, y, x_held_out, y_held_out): the digits as (N, 8 rows, 8 pixels) sequences."""
    x, y, xh, yh = split()
    return x.reshape(-1, 8, 8), y, xh.reshape(-1, 8, 8), yh


def accuracy(model, x, y):
    """Share of ``x`` classified as ``y`` (eval mode, no gradients; mode put back)."""
    was = model.training
    model.eval()
    with torch.no_grad():
        right = (model(x).argmax(dim=-1) == y).float().mean().item()
    model.train(was)
    return round(right, 3)


def sonnet_text(held_out_share=0.15):
    """(training ids, held-out ids, vocabulary size): the last share of the text held out."""
    ids, vocab = characters()
    cut = int(len(ids) * (1 - held_out_share))
    return ids[:cut], ids[cut:], vocab


def recall_sequences(count, length=16, keys=8, noise=8, seed=0):
    """A recall task of the kind MAD's synthetic suite trains on: (ids (count, length),
    labels (count,)). The first id is the key (0..keys-1), the answer at the last step;
    every later id is noise (keys..keys+noise-1), drawn from a private generator."""
    rng = np.random.default_rng(seed)
    labels = torch.from_numpy(rng.integers(0, keys, count))
    ids = torch.from_numpy(rng.integers(keys, keys + noise, (count, length)))
    ids[:, 0] = labels
    return ids, labels
