"""CFRNet's sample reweighting with a misplaced parenthesis: the control weight is written
`w_c = (1 - t) / (2 * 1 - p_t)` instead of `(1 - t) / (2 * (1 - p_t))`, so with most units
treated (p_t = 0.8) the control units get weight 1/1.2 = 0.83 instead of 1/0.4 = 2.5, while
the treated keep 1/(2 p_t) = 0.63: the rare control arm, which the reweighting should lift,
is left under-weighted and its outcome head learns slowly.

Reported: "weighting treated / controlled for reweight_sample option." -
https://github.com/clinicalml/cfrnet/issues/3 (`w_c = (1 - t) / (2 * 1 - p_t)` should be
`w_c = (1 - t) / (2 * (1 - p_t))`; the maintainer: "Fixed!"). Here a TARNet with the
reweighted factual MSE (the IPM term left out) on 1,600 synthetic units with about 80%
treated (benchmarks/real_bugs/_uplift.py, propensity shifted by +1.5), plain SGD 0.05.
Fix: the parenthesis.

Measured harm (held-out PEHE, lower is better): 0.455 vs 0.371; seeds + 1000: 0.291 vs
0.254 (small but the same way at both seeds).
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._uplift import TARNet, index_batches, observational, pehe

TITLE = "weighting treated / controlled for reweight_sample option."
LINK = "https://github.com/clinicalml/cfrnet/issues/3"
EXPECTED = ("CLASS_WEIGHTS_SHRINK_LOSS",)
STEPS = 300
PROP_SHIFT = 1.5


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    data = observational(prop_shift=PROP_SHIFT)
    model = TARNet()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    x, t, y = data["x"], data["t"], data["y"]
    p_t = float(t.mean())
    w_t = t / (2 * p_t)
    if fixed:
        w_c = (1 - t) / (2 * (1 - p_t))
    else:
        w_c = (1 - t) / (2 * 1 - p_t)           # BUG: the parenthesis is misplaced
    sample_weight = w_t + w_c
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(x), steps):
            xb, tb, yb, wb = x[index], t[index], y[index], sample_weight[index]
            y0, y1, _ = model(xb)
            y_pred = tb * y1 + (1 - tb) * y0
            loss = (wb * (yb - y_pred) ** 2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.extra = {"test_pehe": round(pehe(model, data), 3)}
    return mon
