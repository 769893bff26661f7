"""A RealNVP density model trained by maximum likelihood on data whose feature columns are
the same two coordinates repeated: the 8 inputs are 4 copies of (x, y), so every sample lies
on a 2-dimensional plane inside the 8-dimensional space. A density on 8 dimensions can pile
unbounded mass onto that plane: the flow learns to squeeze the six redundant directions to
nothing, each squeeze buys log-likelihood (as far as the coupling's scale bound lets it),
and the loss falls far below what any density of the two real coordinates allows while the
model learns them worse: its samples drift off the rings.

Reported: "Higher dimensional data leads to exploding likelihood" -
https://github.com/bayesiains/nflows/issues/22 (a flow on the 2-D four-circles data
"repeated ... to blow up the dimensionality": the 2-D data "works fine", the repeated one's
loss "goes down to as low as -45. It goes even lower if I train longer"; the copies make
the data degenerate - it has no density in the higher-dimensional space). Here a six-layer
affine coupling flow on three concentric rings, once with the two coordinates repeated
four times (the bug), once on the two coordinates (the fixed twin).
Fix: model the distinct coordinates only (drop the copies), or give the copies their own
independent noise so the data has a density in every dimension.

Measured (400 steps, Adam 3e-3, batch 128, seed 0): the bug's loss falls to -0.14 (per
sample, below any density of the two real coordinates can give), the twin's settles near
3.5; of 2000 samples drawn from each model, 0.36 of the bug's lie within 0.25 of a ring
(rings at radius 1, 2, 3; median distance 0.35), 0.50 of the twin's (median 0.25).
"""
import math

import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._flows import FlowStack, negative_log_likelihood

TITLE = "Higher dimensional data leads to exploding likelihood"
LINK = "https://github.com/bayesiains/nflows/issues/22"
EXPECTED = ("INPUT_FEATURES_DUPLICATED",)
STEPS = 400
LR = 3e-3
BATCH = 128
LAYERS = 6
COPIES = 4
RADII = (1.0, 2.0, 3.0)
RING_NOISE = 0.08
SCALE_BOUND = 8.0
NEAR_RING = 0.25


def rings(n, generator):
    radius = torch.tensor(RADII)[torch.randint(len(RADII), (n,), generator=generator)]
    angle = torch.rand(n, generator=generator) * 2 * math.pi
    points = torch.stack([radius * torch.cos(angle), radius * torch.sin(angle)], 1)
    return points + RING_NOISE * torch.randn(n, 2, generator=generator)


class Coupling(nn.Module):
    """RealNVP affine coupling: the masked-out half is scaled and shifted by a function of the
    kept half (log-scale soft-clipped to +-SCALE_BOUND by a tanh)."""

    def __init__(self, mask):
        super().__init__()
        self.register_buffer("mask", mask)
        width = len(mask)
        self.net = nn.Sequential(nn.Linear(width, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(),
                                 nn.Linear(64, 2 * width))

    def forward(self, x):
        log_scale, shift = self.net(x * self.mask).chunk(2, dim=1)
        log_scale = SCALE_BOUND * torch.tanh(log_scale / SCALE_BOUND) * (1 - self.mask)
        shift = shift * (1 - self.mask)
        return x * torch.exp(log_scale) + shift, log_scale.sum(1)

    def inverse(self, z):
        log_scale, shift = self.net(z * self.mask).chunk(2, dim=1)
        log_scale = SCALE_BOUND * torch.tanh(log_scale / SCALE_BOUND) * (1 - self.mask)
        return (z - shift * (1 - self.mask)) * torch.exp(-log_scale)


class RealNVP(FlowStack):
    def __init__(self, width):
        super().__init__()
        masks = [(torch.arange(width) + i) % 2 for i in range(LAYERS)]
        self.layers = nn.ModuleList(Coupling(m.float()) for m in masks)

    def sample(self, n):
        z = torch.randn(n, self.layers[0].mask.numel())
        for layer in reversed(self.layers):
            z = layer.inverse(z)
        return z


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    data = torch.Generator().manual_seed(1)
    width = 2 if fixed else 2 * COPIES
    flow = RealNVP(width)
    optimizer = torch.optim.Adam(flow.parameters(), lr=LR)
    with nd.watch(flow, optimizer, **watch) as mon:
        for _ in range(steps):
            points = rings(BATCH, data)
            # BUG: the two coordinates repeated as 8 features (fixed: the two alone)
            x = points if fixed else points.repeat(1, COPIES)
            optimizer.zero_grad()
            loss = negative_log_likelihood(flow, x)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        drawn = flow.sample(2000)[:, :2]
        radius = drawn.norm(dim=1, keepdim=True)
        off_ring = (radius - torch.tensor(RADII)).abs().min(1).values
    mon.extra = {"final_loss": round(float(loss), 2),
                 "samples_near_a_ring": round(float((off_ring < NEAR_RING).float().mean()), 3),
                 "median_distance_from_rings": round(float(off_ring.median()), 3)}
    return mon
