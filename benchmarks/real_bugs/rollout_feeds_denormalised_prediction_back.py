"""A multi-step (autoregressive) training rollout feeds the model's prediction back AFTER
converting it to physical units: the second step's input is temperature in kelvin and
geopotential height in decametres (values near 280 and 550) for a network trained on
standardised fields, so the rollout loss is dominated by a step the model can never get
right, and the gradients of that step wreck the one-step forecaster too.

Reported: "Realtime Rollout Blowing up" - https://github.com/NCAR/miles-credit/issues/363
("It appears that the autoregressive rollout feeds the inverse normalization data back into
the model"; the physical-space y_pred * std + mean is what goes back in as x). Here the same
rollout feeds a 2-step training loss: a periodic CNN on a 12 x 24 toy atmosphere. Fix: keep
the normalised prediction for the next input; de-normalise only what is written out.

Measured (held-out area-weighted RMSE of a correct 4-step rollout, standardised units, 200
Adam steps): 0.764 vs 0.151; seeds + 1000: 0.747 vs 0.143.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs import _wx

TITLE = "Realtime Rollout Blowing up"
LINK = "https://github.com/NCAR/miles-credit/issues/363"
EXPECTED = ("UNNORMALIZED_INPUTS", "INPUT_CHANNELS_ON_DIFFERENT_SCALES")
STEPS = 200
HELDOUT = []
MEAN = torch.tensor([280.0, 550.0]).view(1, 2, 1, 1)    # t850 (K), z500 (dam)
STD = torch.tensor([15.0, 8.0]).view(1, 2, 1, 1)


def rollout(model, x, n):
    """n autoregressive steps on normalised fields (the fixed feedback)."""
    outs = []
    for _ in range(n):
        x = model(x)
        outs.append(x)
    return outs


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    phys = _wx.states(2048) * STD + MEAN                   # the archive, physical units
    x0 = (phys - MEAN) / STD
    x1 = _wx.advance(x0, banded=False)
    x2 = _wx.advance(x1, banded=False)
    test = _wx.states(256)
    truth = [test]
    for _ in range(4):
        truth.append(_wx.advance(truth[-1], banded=False))
    model = _wx.cnn(2, 2)
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            pick = torch.randint(0, len(x0), (32,))
            optimizer.zero_grad()
            y1 = model(x0[pick])
            y1_phys = y1 * STD + MEAN                      # written out in physical units
            nxt = y1 if fixed else y1_phys                 # BUG when not fixed: physical units fed back
            y2 = model(nxt)
            loss = (((y1 - x1[pick]) ** 2).mean() + ((y2 - x2[pick]) ** 2).mean()) / 2
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        preds = rollout(model, test, 4)
        HELDOUT.append(sum(_wx.weighted_rmse(p, t) for p, t in zip(preds, truth[1:])) / 4)
    return mon
