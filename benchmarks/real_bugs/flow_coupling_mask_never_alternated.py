"""A Glow-style flow whose affine coupling layers all use the same mask: every layer
transforms the second coordinate as a function of the first, none ever transforms the
first. The first coordinate only passes through the per-feature ActNorm maps, so the flow
can model it as nothing but a Gaussian: its two modes are merged into one wide bump, and
samples fill the gap between them. The loss falls and settles, only higher than it should.

Reported: "alternate the mask for each stack in glow" -
https://github.com/ikostrikov/pytorch-flows/pull/10 (merged: the Glow model of
pytorch-flows built every coupling layer with one mask; the fix flips the mask from one
flow step to the next, ``mask = 1 - mask``, as its RealNVP model already did). Here a flow
of four [ActNorm, affine coupling] steps fits a 2-D density whose first coordinate is
bimodal (modes at +-2) and whose second follows a curve of the first.
Fix: alternate the mask between steps (or permute the features between them).

Measured (500 steps, Adam 3e-3, batch 128, seed 0): held-out negative log-likelihood 1.96
for the bug, 1.11 for the twin; share of 2000 samples whose first coordinate falls in the
nearly empty gap |x| < 1 between the modes: 0.39 for the bug, 0.08 for the twin (the
data: 0.002).
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._flows import FlowStack, negative_log_likelihood

TITLE = "alternate the mask for each stack in glow"
LINK = "https://github.com/ikostrikov/pytorch-flows/pull/10"
EXPECTED = ("COUPLING_MASK_NEVER_ALTERNATES",)
STEPS = 500
LR = 3e-3
BATCH = 128
FLOW_STEPS = 4
HELD_OUT = 2000


def two_bumps(n, generator):
    """x: +-2 with noise 0.35; y: a parabola of x with noise 0.2."""
    x = torch.where(torch.rand(n, generator=generator) < 0.5, -2.0, 2.0) \
        + 0.35 * torch.randn(n, generator=generator)
    y = 0.5 * x ** 2 - 1.0 + 0.2 * torch.randn(n, generator=generator)
    return torch.stack([x, y], 1)


class ActNorm(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.loc = nn.Parameter(torch.zeros(features))
        self.log_scale = nn.Parameter(torch.zeros(features))
        self.register_buffer("initialized", torch.tensor(0))

    def forward(self, x):
        if not bool(self.initialized):
            with torch.no_grad():
                self.loc.copy_(-x.mean(0))
                self.log_scale.copy_(-torch.log(x.std(0) + 1e-6))
                self.initialized.fill_(1)
        return (x + self.loc) * torch.exp(self.log_scale), self.log_scale.sum().expand(len(x))

    def inverse(self, z):
        return z * torch.exp(-self.log_scale) - self.loc


class MaskedCoupling(nn.Module):
    """y = mask * x + (1 - mask) * (x * exp(s(mask * x)) + t(mask * x))."""

    def __init__(self, mask):
        super().__init__()
        self.register_buffer("mask", mask)
        self.net = nn.Sequential(nn.Linear(2, 64), nn.ReLU(), nn.Linear(64, 4))

    def _scale_shift(self, x):
        log_scale, shift = self.net(x * self.mask).chunk(2, dim=1)
        return torch.tanh(log_scale) * 2 * (1 - self.mask), shift * (1 - self.mask)

    def forward(self, x):
        log_scale, shift = self._scale_shift(x)
        return x * torch.exp(log_scale) + shift, log_scale.sum(1)

    def inverse(self, z):
        log_scale, shift = self._scale_shift(z)
        return (z - shift) * torch.exp(-log_scale)


class Glow(FlowStack):
    def __init__(self, fixed):
        super().__init__()
        mask = torch.tensor([1.0, 0.0])
        self.layers = nn.ModuleList()
        for _ in range(FLOW_STEPS):
            self.layers.append(ActNorm(2))
            self.layers.append(MaskedCoupling(mask))
            if fixed:
                mask = 1 - mask              # BUG: the bug keeps one mask for every step

    def sample(self, n):
        z = torch.randn(n, 2)
        for layer in reversed(self.layers):
            z = layer.inverse(z)
        return z


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    data = torch.Generator().manual_seed(1)
    flow = Glow(fixed)
    optimizer = torch.optim.Adam(flow.parameters(), lr=LR)
    with nd.watch(flow, optimizer, **watch) as mon:
        for _ in range(steps):
            optimizer.zero_grad()
            loss = negative_log_likelihood(flow, two_bumps(BATCH, data))
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        nll = negative_log_likelihood(flow, two_bumps(HELD_OUT, torch.Generator().manual_seed(2)))
        gap = (flow.sample(HELD_OUT)[:, 0].abs() < 1).float().mean()
    mon.extra = {"held_out_nll": round(float(nll), 3), "samples_in_gap": round(float(gap), 3)}
    return mon
