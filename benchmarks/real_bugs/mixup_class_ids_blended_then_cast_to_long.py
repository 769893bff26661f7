"""Mixup written on class ids instead of one-hot rows: the script blends the integer labels
with the same coefficient as the images, ``lam * y + (1 - lam) * y[perm]``, gets fractional
"labels" that CrossEntropyLoss refuses, and casts them back with ``.long()``. The cast
truncates: a 3 mixed with a 7 at lam = 0.3 becomes 5.8 -> 5, a digit that is in neither
image. Most mixed samples are trained towards a class between their two partners' ids, so
the classifier learns a label that depends on the arithmetic of the ids, not on the images.

Reported: "mixup_labels" - https://github.com/mancinimassimiliano/CuMix/issues/8 ("Why do
synthesized labels(mixup_labels) have decimals? ... How do I turn mixup_labels into
integers?": the user mixed the class ids and needed integers for the cross entropy).
Here an MLP on the 8x8 digits (64 -> 128 -> 10), Adam 1e-3, batches of 64, mixup with
lam ~ Beta(1, 1) and one permutation of the batch per step; the ids blended and cast to
long for nn.CrossEntropyLoss.
Fix: keep both ids and mix the losses, ``lam * ce(out, y) + (1 - lam) * ce(out, y[perm])``
(the same as cross entropy against the mixed one-hot rows).

Measured (held-out accuracy on 500 digits after the run): 0.584 with the bug, 0.950 fixed;
seeds + 1000: 0.626 vs 0.942.
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._reg169 import accuracy, split

TITLE = "mixup_labels"
LINK = "https://github.com/mancinimassimiliano/CuMix/issues/8"
EXPECTED = ("MIXUP_PARTNERS_MISMATCHED",)
STEPS = 300
ALPHA = 1.0


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x, y, xh, yh = split()
    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            lam = float(rng.beta(ALPHA, ALPHA))
            perm = torch.randperm(len(xb))
            mixed = lam * xb + (1 - lam) * xb[perm]
            optimizer.zero_grad()
            out = model(mixed)
            if fixed:
                loss = lam * criterion(out, yb) + (1 - lam) * criterion(out, yb[perm])
            else:
                mixed_labels = (lam * yb + (1 - lam) * yb[perm]).long()   # BUG: ids blended
                loss = criterion(out, mixed_labels)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(model, xh, yh)
    return mon
