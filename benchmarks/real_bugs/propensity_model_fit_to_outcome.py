"""The propensity model is fit to the outcome instead of the treatment: `ps_m.fit(train[X],
train[y])` trains the "propensity score" to predict whether the unit converted, so the
inverse-probability weights built from it weigh units by their outcome, not by how likely
they were to be treated.

Reported: "Chapter 21-T learner propensity score estimation" -
https://github.com/matheusfacure/python-causality-handbook/issues/218 (the handbook's
propensity model was `fit(train[X], train[y])`, a logistic model of the outcome; it should be
`fit(train[X], train[T])`; the author: "Nice catch! I fixed it"). Here the propensity model
is a small MLP trained with BCE on 1,600 synthetic confounded units whose binary outcome is
"converted" (y > 0; benchmarks/real_bugs/_uplift.py), Adam 1e-2. Fix: the treatment as the
target.

Measured harm (held-out mean absolute error of the estimated propensity against the true
one, lower is better): 0.21 vs 0.06; seeds + 1000: 0.20 vs 0.07.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._uplift import FEATURES, index_batches, observational

TITLE = "Chapter 21-T learner propensity score estimation"
LINK = "https://github.com/matheusfacure/python-causality-handbook/issues/218"
EXPECTED = ("LABELS_MISALIGNED",)
STEPS = 200


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    data = observational()
    x, t = data["x"], data["t"]
    converted = (data["y"] > 0).float()
    target = t if fixed else converted          # BUG when not fixed: fit to the outcome
    model = nn.Sequential(nn.Linear(FEATURES, 32), nn.ReLU(), nn.Linear(32, 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    loss_fn = nn.BCEWithLogitsLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(x), steps):
            loss = loss_fn(model(x[index]).squeeze(1), target[index])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        e_hat = torch.sigmoid(model(data["x_test"]).squeeze(1))
    mon.extra = {"test_propensity_mae": round(float((e_hat - data["e_test"]).abs().mean()), 3)}
    return mon
