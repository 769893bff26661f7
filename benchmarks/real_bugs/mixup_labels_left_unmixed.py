"""Mixup applied to the inputs but not to the labels: each mixed input is trained towards
the label of only one of the two samples it was mixed from, so a share of every batch
teaches the wrong answer with full confidence.

Reported: "mixup not applied to weak labels" -
https://github.com/DCASE-REPO/DESED_task/issues/93 ("the variable labels_weak is already
assigned before and not modified after mixup. Is it intended to not mix the labels for
weakly labeled clips?"; the maintainer: "No you are correct thank you for noticing it. I
have fixed it"). Here a digits MLP trained with mixup (lambda ~ Beta(1, 1)), the loss taken
against the first sample's label only. Fix: the loss mixed with the same lambda,
``lam * ce(out, y) + (1 - lam) * ce(out, y[perm])``.

Why watch misses it: the targets are valid class ids and the inputs in range, and nothing
recorded tells a batch of blended inputs from a plain one, or a mixup run from one with
noisy labels. Its loss is noisy late in the run (a confident model's loss on a 50/50 blend
is far from its loss on a 90/10 one: step-to-step noise 0.6 against 0.17 over the whole
run), and LOSS_DIVERGING used to read the lowest of its twenty window medians (1.46) against
the last (1.94) as a rise; it now measures that difference against those two windows' own
noise, and stays silent.
"""
import numpy as np
import torch

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, mlp

TITLE = "mixup not applied to weak labels"
LINK = "https://github.com/DCASE-REPO/DESED_task/issues/93"
EXPECTED = ("LABELS_NOT_MIXED",)
STEPS = 200
ALPHA = 1.0


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(1)
    x, y = classification()
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    ce = torch.nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            lam = float(rng.beta(ALPHA, ALPHA))
            perm = torch.from_numpy(rng.permutation(len(xb)))
            mixed = lam * xb + (1 - lam) * xb[perm]
            optimizer.zero_grad()
            out = model(mixed)
            if fixed:
                loss = lam * ce(out, yb) + (1 - lam) * ce(out, yb[perm])
            else:
                loss = ce(out, yb)            # BUG: the labels were not mixed
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
