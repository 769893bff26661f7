"""The forecast engine is conditioned on the index of its own block instead of the forecast
step (lead time): every step of a rollout sees the same conditioning values (block 0, block
1), so the network cannot tell a 6-hour forecast from an 18-hour one and averages away what
depends on the lead time - here a diurnal heating that differs at each step of the day.

Reported: "Wrong value is passed as fstep to forecast engine" -
https://github.com/ecmwf/WeatherGenerator/issues/1115 ("The forecast engine is provided with
the index of the current forecast block instead of receiving the forecast step fstep").
Here two residual conv blocks roll a toy atmosphere on a 12 x 24 grid forward 4 steps of 6
hours from 00 UTC, a heating of the first variable that follows the hour of the day added
at each step; the loss is the
mean over the 4 steps. Fix: pass fstep to every block.

Measured (held-out area-weighted RMSE of the 4-step rollout, standardised units, 150 Adam
steps): 0.412 vs 0.196; seeds + 1000: 0.403 vs 0.194.
"""
import math

import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs import _wx

TITLE = "Wrong value is passed as fstep to forecast engine"
LINK = "https://github.com/ecmwf/WeatherGenerator/issues/1115"
EXPECTED = ("POSITIONS_IGNORED",)
STEPS = 150
HELDOUT = []
FSTEPS = 4
AMP = 0.8                                  # diurnal heating of the first variable


def truth(x, n):
    out = []
    for k in range(1, n + 1):
        x = _wx.advance(x, banded=False)
        sun = torch.zeros_like(x)
        sun[:, :1] = AMP * math.sin(2 * math.pi * (k - 0.5) / FSTEPS)
        x = x + sun
        out.append(x)
    return out


class Engine(nn.Module):
    def __init__(self, channels=2, blocks=2):
        super().__init__()
        self.blocks = nn.ModuleList(_wx.cnn(channels + 1, channels, width=12) for _ in range(blocks))

    def forward(self, x, fstep, fixed):
        for ib, block in enumerate(self.blocks):
            step = fstep if fixed else ib              # BUG when not fixed: block index
            cond = torch.full_like(x[:, :1], step / FSTEPS)
            x = x + block(torch.cat([x, cond], 1))
        return x


def rollout(model, x, fixed):
    preds = []
    for fstep in range(1, FSTEPS + 1):
        x = model(x, fstep, fixed)
        preds.append(x)
    return preds


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x0 = _wx.states(1024)
    targets = torch.stack(truth(x0, FSTEPS), 1)
    test0 = _wx.states(256)
    test_t = truth(test0, FSTEPS)
    model = Engine()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            pick = torch.randint(0, len(x0), (16,))
            optimizer.zero_grad()
            preds = rollout(model, x0[pick], fixed)
            loss = sum(((p - targets[pick, k]) ** 2).mean() for k, p in enumerate(preds)) / FSTEPS
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        preds = rollout(model, test0, fixed)
        HELDOUT.append(sum(_wx.weighted_rmse(p, t) for p, t in zip(preds, test_t)) / FSTEPS)
    return mon
