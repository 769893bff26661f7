"""A hand-written triplet loss takes the MEAN of the squared differences over the
embedding axis (``K.mean(K.square(a - p), axis=-1)``) where the squared Euclidean
distance is their SUM. With 128 embedding dimensions every distance is 128 times too
small for the margin of 1: no triplet ever clears the margin, the hinge never switches
off, and the loss becomes ``1 + d(a, p) - d(a, n)`` for every triplet - a push that grows
every negative distance without bound instead of a margin to meet. The loss falls, just
toward nothing useful.

Reported: "discussions of triplet loss inputs" - https://github.com/keras-team/keras/issues/9498
(the reporter's triplet model did not learn; "the problem is caused because of a bad
implementation of triplet loss ... I change K.mean to K.sum to fix it"). Here an MLP tower
with a 128-wide embedding on 8x8 digits, random (anchor, positive, negative) triplets of
64, squared distances, margin 1, Adam.

Fix: sum the squared differences over the embedding axis (``.sum(-1)``).

Measured (held-out 1-nearest-neighbour accuracy of the embedding, 500 digits):
held-out accuracy 0.854 vs 0.928 for the fixed twin; seeds + 1000: 0.822 vs 0.930
(300 steps each).
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._siamese_tutorials import (digits, nearest_neighbour_accuracy,
                                                      new_generator, tower)

TITLE = "discussions of triplet loss inputs"
LINK = "https://github.com/keras-team/keras/issues/9498"
EXPECTED = ("MARGIN_OUTSIDE_SIMILARITY_RANGE",)
STEPS = 300
MARGIN = 1.0
LR = 1e-3


def triplets(y, count, generator):
    anchor = torch.randint(0, len(y), (count,), generator=generator)
    positive = torch.randint(0, len(y), (count,), generator=generator)
    negative = torch.randint(0, len(y), (count,), generator=generator)
    for k in range(count):
        while y[positive[k]] != y[anchor[k]] or positive[k] == anchor[k]:
            positive[k] = torch.randint(0, len(y), (1,), generator=generator)
        while y[negative[k]] == y[anchor[k]]:
            negative[k] = torch.randint(0, len(y), (1,), generator=generator)
    return anchor, positive, negative


def triplet_loss(a, p, n, fixed):
    # BUG when not fixed: the mean over the embedding axis, not the sum
    reduce = (lambda t: t.sum(-1)) if fixed else (lambda t: t.mean(-1))
    positive_distance = reduce((a - p).pow(2))
    negative_distance = reduce((a - n).pow(2))
    return (MARGIN + positive_distance - negative_distance).clamp_min(0).mean()


def _train(fixed, steps, watch):
    torch.manual_seed(0)
    x, y, x_test, y_test = digits()
    generator = new_generator()
    model = tower(dim=128)
    optimizer = torch.optim.Adam(model.parameters(), lr=LR)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            anchor, positive, negative = triplets(y, 64, generator)
            optimizer.zero_grad()
            loss = triplet_loss(model(x[anchor]), model(x[positive]), model(x[negative]), fixed)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon, nearest_neighbour_accuracy(model, x, y, x_test, y_test)


def run(fixed=False, steps=STEPS, **watch):
    return _train(fixed, steps, watch)[0]
