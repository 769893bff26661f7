"""Shared pieces of real-bug batch 185 (multi-label classification): collages of the 8x8
digits drawn from a NumPy generator the case seeds (so the benchmark's seed shift reaches
the data), two labellings of them, a small MLP tagger and the held-out read-outs.

A collage is a 2x2 grid of 8x8 cells, each holding a digit image or left blank. The
training collages draw their digit images from the first 1,400 digits, the held-out ones
from the other 397, so the held-out scores measure generalisation.
"""
import numpy as np
import torch
from torch import nn

from benchmarks.real_bugs._common import classification

TRAIN_IMAGES = 1400
GRID = 2


def collages(count, rng, held_out=False, fill=0.6):
    """(x, cell_digits): ``count`` collages flattened to (count, 256) pixels in [0, 1] and
    the (count, 4) digit in each cell (-1 blank); every collage holds at least one digit."""
    images, labels = classification(images=True)
    low, high = (TRAIN_IMAGES, len(images)) if held_out else (0, TRAIN_IMAGES)
    cells = GRID * GRID
    filled = rng.random((count, cells)) < fill
    filled[np.arange(count), rng.integers(0, cells, count)] = True
    picks = torch.from_numpy(rng.integers(low, high, (count, cells)))
    filled = torch.from_numpy(filled)
    tiles = images[picks, 0] * filled[:, :, None, None]
    rows = tiles.view(count, GRID, GRID, 8, 8).permute(0, 1, 3, 2, 4)
    x = rows.reshape(count, 64 * cells)
    return x, torch.where(filled, labels[picks], torch.full_like(picks, -1))


def digits_present(cell_digits):
    """(N, 10) multi-hot "digit d appears somewhere" (1 to 4 labels per collage)."""
    y = torch.zeros(len(cell_digits), 10)
    for cell in range(cell_digits.shape[1]):
        shown = cell_digits[:, cell] >= 0
        y[shown, cell_digits[shown, cell]] = 1.0
    return y


def digit_at_cell(cell_digits):
    """(N, 40) multi-hot "digit d in cell c" (each label positive in ~6% of collages)."""
    count, cells = cell_digits.shape
    y = torch.zeros(count, cells * 10)
    for cell in range(cells):
        shown = cell_digits[:, cell] >= 0
        y[shown, cell * 10 + cell_digits[shown, cell]] = 1.0
    return y


def tagger(labels, hidden=128):
    return nn.Sequential(nn.Linear(64 * GRID * GRID, hidden), nn.ReLU(),
                         nn.Linear(hidden, labels))


def index_batches(n, steps, batch_size, rng):
    done = 0
    while True:
        order = torch.from_numpy(rng.permutation(n))
        for start in range(0, n - batch_size + 1, batch_size):
            yield order[start:start + batch_size]
            done += 1
            if done == steps:
                return


@torch.no_grad()
def f1_scores(predicted, y):
    """(micro-F1, macro-F1) of the boolean predictions against the multi-hot ``y``."""
    truth = y > 0.5
    tp = (predicted & truth).sum(0).float()
    fp = (predicted & ~truth).sum(0).float()
    fn = (~predicted & truth).sum(0).float()
    micro = (2 * tp.sum() / (2 * tp.sum() + fp.sum() + fn.sum()).clamp(min=1)).item()
    macro = (2 * tp / (2 * tp + fp + fn).clamp(min=1)).mean().item()
    return micro, macro


@torch.no_grad()
def recall(predicted, y):
    truth = y > 0.5
    return ((predicted & truth).sum() / truth.sum().clamp(min=1)).item()


@torch.no_grad()
def precision(predicted, y):
    truth = y > 0.5
    return ((predicted & truth).sum() / predicted.sum().clamp(min=1)).item()
