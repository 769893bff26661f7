"""A weighted cross-entropy computed as ``(loss * sample_weight).mean()``: the weighted
losses are divided by the number of rows, not by the sum of the weights. With weights that
are counts (how many times each row occurred in the raw log, 1 to 100, heavy-tailed) the
loss - and every gradient - is scaled by the batch's average weight: 7 times the
normalised weighted mean's for a typical batch here, and from 3 to 14 times depending on
which frequent rows the batch drew. Plain SGD at the rate chosen for a weighted mean is
knocked about and the classifier ends far worse.

Reported: "CEWeighted loss issue" - https://github.com/sb-ai-lab/RePlay/issues/91
(``CEWeighted`` "computes weighted loss as (loss * sample_weight).mean(), which is not a
normalized weighted mean"; it "divides by N instead of sum(sample_weight), so loss scale
depends on average batch weight and can be unstable"; the maintainers will fix it). Here
the 8x8 digits, each training row given a count weight drawn once (a Pareto tail, 1 to
100), an MLP 64 -> 64 -> 10, cross-entropy with ``reduction="none"`` times the weights,
SGD with momentum 0.9 at lr 0.1, batches of 64, 300 steps.

Fix: the normalised weighted mean, ``(loss * w).sum() / w.sum()``.

Measured (held-out accuracy, 297 digits): 0.283 with the bug, 0.902 fixed; seeds + 1000:
0.111 vs 0.909.
"""
import numpy as np
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._common import index_batches, mlp
from benchmarks.real_bugs._red297 import accuracy, split

TITLE = "CEWeighted loss issue"
LINK = "https://github.com/sb-ai-lab/RePlay/issues/91"
EXPECTED = ("LR_TOO_HIGH", "LOSS_DIVERGING", "EXPLODING_GRADIENTS", "NAN_LOSS")
STEPS = 300


def count_weights(n, seed=0):
    """How often each row occurred: 1 + a Pareto tail, rounded, at most 100."""
    rng = np.random.default_rng(seed)
    counts = np.minimum(1 + np.floor(rng.pareto(1.1, n) * 2), 100)
    return torch.from_numpy(counts.astype(np.float32))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, xh, yh = split()
    weight = count_weights(len(x))
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(x), steps, batch_size=64, seed=0):
            xb, yb, wb = x[index], y[index], weight[index]
            per_row = F.cross_entropy(model(xb), yb, reduction="none")
            if fixed:
                loss = (per_row * wb).sum() / wb.sum()
            else:
                loss = (per_row * wb).mean()            # BUG: divided by the rows, not the weights
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(model, xh, yh)
    return mon
