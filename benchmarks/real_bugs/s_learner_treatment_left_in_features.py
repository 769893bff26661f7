"""S-learner (one model with the treatment flag as an extra input) whose feature table still
holds the treatment column: the flag is appended to features that already contain it, so the
network learns the treatment effect from two identical columns, and at prediction time - the
flag set to 1 and then 0 while the leftover column keeps the observed treatment - only part
of the effect moves with the flag: the estimated uplift is shrunk and distorted.

Reported: "Superfluous treatment feature in a notebook with an example" -
https://github.com/maks-sh/scikit-uplift/issues/87 (the example keeps the treatment flags in
a separate Series but does not drop the treatment column from X_train, "the model is trained
on two treatment features at once"; when applied, treatment is set to 0 and 1 and the
difference taken; the maintainer: "Wow, this is a major mistake."). Here a neural S-learner
(MLP on the covariates + treatment flag, MSE, Adam 1e-2) on 1,600 synthetic confounded units
with known potential outcomes (benchmarks/real_bugs/_uplift.py). Fix: drop the treatment
column from the features.

Measured harm (held-out PEHE, lower is better): 0.77 vs 0.34; seeds + 1000: 0.95 vs 0.32.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._uplift import FEATURES, index_batches, observational

TITLE = "Superfluous treatment feature in a notebook with an example"
LINK = "https://github.com/maks-sh/scikit-uplift/issues/87"
EXPECTED = ("INPUT_FEATURES_DUPLICATED",)
STEPS = 300


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    data = observational()
    x, t, y = data["x"], data["t"], data["y"]
    x_test, t_test = data["x_test"], data["t_test"]
    if not fixed:                               # BUG: the treatment column stays in X
        x = torch.cat([x, t[:, None]], dim=1)
        x_test = torch.cat([x_test, t_test[:, None]], dim=1)
    model = nn.Sequential(nn.Linear(x.shape[1] + 1, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(),
                          nn.Linear(64, 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(x), steps):
            inputs = torch.cat([x[index], t[index, None]], dim=1)
            loss = ((model(inputs).squeeze(1) - y[index]) ** 2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        ones, zeros = torch.ones(len(x_test), 1), torch.zeros(len(x_test), 1)
        uplift = (model(torch.cat([x_test, ones], 1)) - model(torch.cat([x_test, zeros], 1)))
    tau = data["mu1_test"] - data["mu0_test"]
    mon.extra = {"test_pehe": round(float(((uplift.squeeze(1) - tau) ** 2).mean().sqrt()), 3)}
    return mon
