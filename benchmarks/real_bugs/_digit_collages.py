"""Multi-label images for the multi-label cases of batch 54: collages of the 8x8 digits.

A collage is a grid of 8x8 cells; each cell holds one digit image (drawn at random) or is
left blank. Two labellings of the same pictures:

- ``digits_present``: 10 labels, "digit d appears somewhere" (1 to 4 per image): an image
  tagger's task, the labels overlap and do not exclude each other;
- ``digit_at_cell``: one label per (cell, digit), "this digit in this cell": many sparse
  labels (each positive in a few percent of the images), as tag sets with hundreds of
  labels are.

The digit images of the training collages and of the held-out ones are disjoint (the first
1,400 images of the digits and the rest), so the held-out scores measure generalisation.
"""
import torch

from benchmarks.real_bugs._common import classification

TRAIN_IMAGES = 1400     # digit images the training collages are drawn from (of 1,797)


def collages(count, grid=2, fill=0.6, held_out=False, seed=0):
    """(x, cell_digits): ``count`` collages of ``grid`` x ``grid`` cells, flattened to
    (count, 64 * grid * grid) pixels in [0, 1], and (count, grid * grid) int64 digit per
    cell (-1 for a blank cell). Each cell is filled with probability ``fill``; every collage
    holds at least one digit."""
    g = torch.Generator().manual_seed(seed + (7919 if held_out else 0))
    images, labels = classification(images=True)
    pool = torch.arange(TRAIN_IMAGES, len(images)) if held_out else torch.arange(TRAIN_IMAGES)
    cells = grid * grid
    filled = torch.rand(count, cells, generator=g) < fill
    filled[torch.arange(count), torch.randint(0, cells, (count,), generator=g)] = True
    picks = pool[torch.randint(0, len(pool), (count, cells), generator=g)]
    tiles = images[picks, 0] * filled[:, :, None, None]          # (count, cells, 8, 8)
    rows = tiles.view(count, grid, grid, 8, 8).permute(0, 1, 3, 2, 4)
    x = rows.reshape(count, 8 * grid * 8 * grid)
    cell_digits = torch.where(filled, labels[picks], torch.full_like(picks, -1))
    return x, cell_digits


def digits_present(cell_digits):
    """(N, 10) float multi-hot: which digits appear in each collage."""
    y = torch.zeros(len(cell_digits), 10)
    for cell in range(cell_digits.shape[1]):
        shown = cell_digits[:, cell] >= 0
        y[shown, cell_digits[shown, cell]] = 1.0
    return y


def digit_at_cell(cell_digits):
    """(N, cells * 10) float multi-hot: label ``cell * 10 + d`` is "digit d in that cell"."""
    count, cells = cell_digits.shape
    y = torch.zeros(count, cells * 10)
    for cell in range(cells):
        shown = cell_digits[:, cell] >= 0
        y[shown, cell * 10 + cell_digits[shown, cell]] = 1.0
    return y


@torch.no_grad()
def micro_f1(scores, y, threshold):
    """Micro-averaged F1 of ``scores > threshold`` against the multi-hot ``y``."""
    predicted = scores > threshold
    truth = y > 0.5
    tp = (predicted & truth).sum().item()
    fp = (predicted & ~truth).sum().item()
    fn = (~predicted & truth).sum().item()
    return 2 * tp / max(2 * tp + fp + fn, 1)


@torch.no_grad()
def recall(scores, y, threshold):
    """Share of the true labels whose score is above ``threshold``."""
    truth = y > 0.5
    return ((scores > threshold) & truth).sum().item() / max(truth.sum().item(), 1)
