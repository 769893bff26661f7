"""A FastKAN (Gaussian radial-basis KAN) layer written from the fast-kan recipe -
LayerNorm over the layer's inputs, then 40 Gaussian bumps on a grid over [-1, 1], then a
linear map of the bump values - used as a one-input network, KAN([1, 1]), to fit a curve
of five narrow peaks. The LayerNorm has normalized_shape=1: it centres each sample's ONE
value on its own mean, so every input leaves it as exactly 0 (plus the norm's bias), every
sample lights the same bumps, and the network can only learn one constant. The loss falls
from its first value to the target's variance and stays there.

Reported: "Unable to replicate continual learning experiment" -
https://github.com/ZiyaoLi/fast-kan/issues/7 ("Since layernorm has normalized_shape=1, it
treats each value as a single feature and as its own mean, thus, resulting in zeros").
Here 1,500 points x uniform on [-1, 1], y = five Gaussian peaks (width 0.05) plus a little
noise, 500 held out; Adam (lr 1e-2), batches of 64, 400 steps.

Fix: no LayerNorm in front of the radial bases of a one-input layer (the reporter removed
it; the inputs already lie on the grid's [-1, 1]).

Measured (held-out R^2): -0.002 with the bug, 0.995 fixed; seeds + 1000: -0.003 vs 0.996.
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._hand_kan import held_out_r2, split

TITLE = "Unable to replicate continual learning experiment"
LINK = "https://github.com/ZiyaoLi/fast-kan/issues/7"
EXPECTED = ("NORM_OVER_SINGLE_VALUE",)
STEPS = 400
PEAKS = (-0.8, -0.4, 0.0, 0.4, 0.8)


class FastKANLayer(nn.Module):
    def __init__(self, inputs, outputs, grids=40, low=-1.0, high=1.0, layernorm=True):
        super().__init__()
        self.norm = nn.LayerNorm(inputs) if layernorm else nn.Identity()
        self.register_buffer("centres", torch.linspace(low, high, grids))
        self.width = (high - low) / (grids - 1)
        self.spline = nn.Linear(inputs * grids, outputs)

    def forward(self, x):
        bumps = torch.exp(-((self.norm(x).unsqueeze(-1) - self.centres) / self.width) ** 2)
        return self.spline(bumps.flatten(1))


def data():
    rng = np.random.default_rng(0)
    x = torch.from_numpy(rng.uniform(-1, 1, (1500, 1)).astype(np.float32))
    y = sum(torch.exp(-(x[:, 0] - c) ** 2 / (2 * 0.05 ** 2)) for c in PEAKS)
    y = y + torch.from_numpy(rng.normal(0, 0.02, 1500).astype(np.float32))
    return split(x, y)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, xh, yh = data()
    # BUG (fixed=False): LayerNorm(1) turns every one-value sample into 0
    model = FastKANLayer(1, 1, layernorm=not fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps, seed=0):
            optimizer.zero_grad()
            loss = nn.functional.mse_loss(model(xb).squeeze(-1), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_r2 = held_out_r2(model, xh, yh)
    return mon
