"""A siamese embedding trained with ``CosineEmbeddingLoss`` whose "different" pairs are
labelled 0 instead of -1. The loss only knows 1 (pull together) and -1 (push apart past
the margin); a 0 matches neither branch, so every different pair adds exactly zero loss
and zero gradient. Only the pull-together half trains, and the cheapest way to make every
same pair similar is to make every pair similar: the embeddings collapse onto one
direction. No error: torch does not check the target's values.

Reported: "CosineEmbeddingLoss" - https://github.com/pytorch/pytorch/issues/23782 (the
report: the loss "should expect a target tensor with discrete values [-1, 1], but works
with any values"; the answer: "the value of the target only makes sense when it is set to
-1 or 1"). Here pairs of digits, same digit or not, an MLP embedding on both sides; a
nearest-centroid probe reads the embeddings. Fix: label the different pairs -1
(``2 * same - 1``).

Measured when written: the probe scores 0.75 on the bug's embeddings against the fixed
twin's 0.95.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import classification

TITLE = "CosineEmbeddingLoss"
LINK = "https://github.com/pytorch/pytorch/issues/23782"
EXPECTED = ("SIGNED_TARGETS_AS_ZERO_ONE",)
STEPS = 200
BATCH = 64


def embedder():
    return nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 16))


def pairs(x, y, steps, seed=0):
    """``steps`` batches of (first, second, same): half the pairs share their digit."""
    generator = torch.Generator().manual_seed(seed)
    by_digit = [torch.nonzero(y == d).flatten() for d in range(10)]
    for _ in range(steps):
        first = torch.randint(len(x), (BATCH,), generator=generator)
        second = torch.randint(len(x), (BATCH,), generator=generator)
        same = torch.rand(BATCH, generator=generator) < 0.5
        for i in torch.nonzero(same).flatten().tolist():
            pool = by_digit[int(y[first[i]])]
            second[i] = pool[torch.randint(len(pool), (1,), generator=generator)]
        yield x[first], x[second], (y[first] == y[second]).float()


def probe_accuracy(model, x, y):
    """Nearest-centroid accuracy (cosine) of the embeddings: how well they separate digits."""
    with torch.no_grad():
        z = nn.functional.normalize(model(x), dim=1)
        means = torch.stack([z[y == d].mean(0) for d in range(10)])
        centroids = nn.functional.normalize(means, dim=1)
        return float(((z @ centroids.T).argmax(1) == y).float().mean())


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = embedder()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CosineEmbeddingLoss(margin=0.0)
    with nd.watch(model, optimizer, **watch) as mon:
        for first, second, same in pairs(x, y, steps):
            target = 2 * same - 1 if fixed else same       # BUG: 0 for "different"
            optimizer.zero_grad()
            loss = loss_fn(model(first), model(second), target)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.probe_accuracy = probe_accuracy(model, x, y)
    return mon
