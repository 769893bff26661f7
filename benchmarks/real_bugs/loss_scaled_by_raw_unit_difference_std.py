"""The per-variable loss scaling divides each standardised error by the standard deviation of
that variable's one-step differences computed in RAW units (kelvin, kg/kg, metres) instead of
in the standardised units the model predicts in: specific humidity, whose raw differences are
~1e-3, gets a weight ~1e11 times that of geopotential, so the loss is humidity alone and the
other variables are barely fitted.

Reported: "Wrong scaling of 1-step diff_std, should be standardized" -
https://github.com/mllam/neural-lam/issues/112 ("after having issues with my one variable
having really high loss I realized that my issues stem from it having a very low value for
diff_std"; the statistic was "computed for the non-standardized variables" and must be
"converted to the standardized scale before being used in the loss"). Here a periodic CNN
forecasts one step of t2m, q and z on a 12 x 24 toy atmosphere. Fix: the differences' std
of the standardised fields.

Measured (held-out area-weighted RMSE over the three standardised variables, 200 Adam
steps): 0.601 vs 0.144; seeds + 1000: 0.673 vs 0.136.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs import _wx

TITLE = "Wrong scaling of 1-step diff_std, should be standardized"
LINK = "https://github.com/mllam/neural-lam/issues/112"
EXPECTED = ("TARGET_COLUMNS_ON_DIFFERENT_SCALES",)
STEPS = 200
HELDOUT = []
MEAN = torch.tensor([285.0, 0.006, 5500.0]).view(1, 3, 1, 1)    # t2m K, q kg/kg, z500 m
STD = torch.tensor([15.0, 0.003, 800.0]).view(1, 3, 1, 1)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    raw0 = _wx.states(2048, 3) * STD + MEAN                    # the archive, physical units
    raw1 = _wx.advance((raw0 - MEAN) / STD, banded=False) * STD + MEAN
    x0, x1 = (raw0 - MEAN) / STD, (raw1 - MEAN) / STD
    if fixed:
        diff_std = (x1 - x0).std((0, 2, 3), keepdim=True)
    else:
        diff_std = (raw1 - raw0).std((0, 2, 3), keepdim=True)   # BUG when not fixed: raw units
    test0 = _wx.states(256, 3)
    test1 = _wx.advance(test0, banded=False)
    model = _wx.cnn(3, 3, width=12)
    optimizer = torch.optim.AdamW(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            pick = torch.randint(0, len(x0), (32,))
            optimizer.zero_grad()
            loss = (((model(x0[pick]) - x1[pick]) / diff_std) ** 2).mean()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        HELDOUT.append(_wx.weighted_rmse(model(test0), test1))
    return mon
