"""A heteroscedastic loss, log(unc) + (y - pred)^2 / unc^2, carries one more term:
``+ (y - pred)``, the signed residual. It is linear in the prediction, so its gradient
pushes every prediction upwards by a constant pull that only the squared term, weighted
by 1/unc^2, resists: the mean settles at y + unc^2 / 2, biased wherever the predicted
uncertainty is large, and the loss (negative wherever pred > y) keeps falling.

Reported: "Small Uncertainty changes" - https://github.com/radionets-project/radionets/pull/91
(reviewer: "when did we add the additional +(y - pred) term?"; author: it came in with an
earlier commit, "I do not know why though"; the PR drops it). Here a 1-D heteroscedastic
regression (noise scale 0.1 to 0.7) with a mean head and a softplus uncertainty head,
Adam, 128-row batches. Fix: drop the ``+ (y - pred)`` term.

Measured (held-out RMSE of the mean against the noiseless curve, 1024 rows): bug 70.2 vs
fixed 0.22; seeds + 1000: 69.4 vs 0.21 (the loss is unbounded below: with pred - y = unc^2 / 2
it is log(unc) - unc^2 / 4, so unc and the bias grow without end).
"""
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._prob import hetero_1d, minibatches, trunk

TITLE = "Small Uncertainty changes"
LINK = "https://github.com/radionets-project/radionets/pull/91"
EXPECTED = ("LOSS_UNBOUNDED_BELOW",)
STEPS = 300


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    (x, y), (x_test, y_test) = hetero_1d()
    model = trunk(2)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in minibatches(x, y, steps):
            out = model(xb)
            pred, unc = out[:, :1], F.softplus(out[:, 1:]) + 1e-3
            loss = 0.5 * torch.log(unc ** 2) + (yb - pred) ** 2 / unc ** 2
            if not fixed:
                loss = loss + (yb - pred)                     # BUG: stray signed residual
            loss = loss.mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        truth = torch.sin(2 * x_test) + 0.5 * x_test
        mon.held_out_rmse = float(((model(x_test)[:, :1] - truth) ** 2).mean().sqrt())
    return mon
