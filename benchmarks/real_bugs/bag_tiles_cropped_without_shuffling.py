"""A slide dataset that caps each training bag at ``max_bag_size`` tiles by keeping the first
tiles of the slide, without shuffling them first. The tiles are stored in scan order, so
every epoch the network sees the same top strip of every slide; a tumour region lower down
is never in the bag, and those slides are taught as positive from tiles that show nothing.
Nothing errors and the loss falls; the model learns from a fraction of its positives and
from a positive label on many tumour-free crops.

Reported: "BUG: Set instance shuffling to True" - https://github.com/microsoft/hi-ml/pull/638
(the hi-ml histopathology MIL pipeline: "Always shuffle tiles in BagDataset", merged as a
bug fix; the training bags are capped at ``max_bag_size`` tiles while validation and test
run on the full slide, hi-ml PR #256). Here a slide is 40 digit tiles in scan order, a
tumour slide holds a contiguous run of 6 target digits (3) at a random place, training
bags keep 8 tiles, held-out slides are scored whole. Attention MIL (instance encoder, tanh
attention, bag classifier), Adam, 16 slides a step, 300 training slides. Fix: shuffle the
tiles of a slide (anew at each draw) before keeping the first ``max_bag_size``.

Measured (300 steps, 400 held-out whole slides): held-out slide accuracy 0.71 with the bug
against 0.99 for the fixed twin; seeds + 1000: 0.78 vs 1.00.
"""
import numpy as np
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._mil import AttentionMIL, bag_accuracy, digits_split

TITLE = "BUG: Set instance shuffling to True"
LINK = "https://github.com/microsoft/hi-ml/pull/638"
EXPECTED = ("DATA_ORDER_REPEATS",)
STEPS = 300
TILES = 40
TUMOUR_RUN = 6
MAX_BAG_SIZE = 8
TARGET = 3
BAGS_PER_STEP = 16


def slides(y, count, rng):
    """(count, TILES) tile rows in scan order and the 0/1 slide labels."""
    has = np.flatnonzero(y.numpy() == TARGET)
    without = np.flatnonzero(y.numpy() != TARGET)
    rows = rng.choice(without, (count, TILES))
    labels = rng.random(count) < 0.5
    for b in np.flatnonzero(labels):
        start = int(rng.integers(0, TILES - TUMOUR_RUN + 1))
        rows[b, start:start + TUMOUR_RUN] = rng.choice(has, TUMOUR_RUN)
    return torch.from_numpy(rows), torch.from_numpy(labels).float()


def crop(rows, fixed, rng):
    if fixed:
        order = torch.from_numpy(np.argsort(rng.random(rows.shape), axis=1))
        rows = torch.gather(rows, 1, order)
    return rows[:, :MAX_BAG_SIZE]        # BUG when not fixed: always the first tiles


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x, y, x_held, y_held = digits_split()
    rows, labels = slides(y, 300, rng)
    held_rows, held_labels = slides(y_held, 400, rng)
    model = AttentionMIL()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            chosen = torch.from_numpy(rng.choice(len(rows), BAGS_PER_STEP, replace=False))
            bags = x[crop(rows[chosen], fixed, rng)]
            loss = F.binary_cross_entropy_with_logits(model(bags), labels[chosen])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_bag_accuracy = bag_accuracy(model, x_held[held_rows], held_labels)
    return mon
