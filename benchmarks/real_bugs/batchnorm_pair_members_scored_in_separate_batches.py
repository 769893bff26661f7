"""A pairwise ranking model scores the two members of each training pair in two forward
calls, always the aligned members first and the misaligned ones second, through a network
with batch norm. In training mode each call's batch norm normalises with the statistics of
a batch that holds ONE kind only: the statistics say which kind the batch is, the network
learns to read them instead of the images, and in eval mode, where batch norm uses its
running averages and a batch holds both kinds, the ranking it learned is close to a coin.

Reported: "implement 3D ResNet training loop" - https://github.com/warpem/miss-alignment/issues/6
(with ``__getitem__`` returning ``aligned, misaligned`` always in that order, "training loss
goes down, but validation loss is essentially random"; the maintainer: "I've finally found
the culprit: BatchNorm ... Since we keep the evaluation order fixed, BatchNorm leaks the
order in the form of slightly different statistics for aligned/misaligned examples, and the
rest of the model learns to react to it."; fixed by putting either member first at random).
Here 8x8 digits against copies whose rows are shifted (misaligned), scored by a small conv
net with BatchNorm2d under a margin ranking loss. Fix: each pair's order drawn at random (the
target says which member is misaligned), so that each call's batch holds both kinds.

Measured (300 steps, 297 held-out pairs, eval mode): the bug ranks 0.43 of the pairs right
(a coin), the fixed twin 0.98.
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import classification

TITLE = "implement 3D ResNet training loop"
LINK = "https://github.com/warpem/miss-alignment/issues/6"
EXPECTED = ("BATCHNORM_BATCHES_SPLIT_BY_CLASS",)
STEPS = 300
HELD_OUT = 297


def misaligned(images, rng):
    """Each image with one random row shifted sideways by one pixel."""
    shifted = images.clone()
    rows = rng.integers(0, 8, len(images))
    for i, row in enumerate(rows.tolist()):
        shifted[i, :, row] = torch.roll(images[i, :, row], 1, dims=-1)
    return shifted


def build():
    return nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
        nn.Conv2d(16, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(),
        nn.Linear(16, 1, bias=False))       # a pair's two scores would share any bias


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, _ = classification(images=True)
    rng = np.random.default_rng(0)
    train, test = x[:-HELD_OUT], x[-HELD_OUT:]
    model = build()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.MarginRankingLoss(margin=1.0)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            aligned = train[torch.from_numpy(rng.choice(len(train), 32, replace=False))]
            shifted = misaligned(aligned, rng)
            if fixed:                    # either member first, the target says which
                swap = torch.from_numpy(rng.random(32) < 0.5)
                first = torch.where(swap.view(-1, 1, 1, 1), shifted, aligned)
                second = torch.where(swap.view(-1, 1, 1, 1), aligned, shifted)
                target = torch.where(swap, 1.0, -1.0)
            else:                        # BUG: the aligned members always come first
                first, second, target = aligned, shifted, -torch.ones(32)
            optimizer.zero_grad()
            loss = loss_fn(model(first).squeeze(1), model(second).squeeze(1), target)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        test_rng = np.random.default_rng(1)
        scores_aligned = model(test).squeeze(1)
        scores_shifted = model(misaligned(test, test_rng)).squeeze(1)
    mon.test_accuracy = round(float((scores_shifted > scores_aligned).float().mean()), 3)
    return mon
