"""A radiance field whose density head ends in a ReLU, started from an initialisation that
makes the head's output negative at every point of the scene. Every density is then
exactly 0: each ray renders as the white background, and the ReLU passes no gradient - not
to the density, and not to the colour either, whose compositing weights are all 0. The
loss, the error of a white image against the views of a dark object, never moves. With
this 8-layer MLP about half of the initial draws land there (the head's output varies
little from point to point next to its offset); seed 5 is one, as are 1005, 2005, 3005.

Reported: "White space" - https://github.com/munshisanowarraihan/nerf-meta/issues/3 (the
trained view synthesis renders "blank, with only a white void"; the maintainer: "If you
have an 'unlucky' initialization, ReLU will only emit zero values for sigma and
optimization will fail", with the fix to replace ``F.relu`` on sigma by ``F.softplus``,
quoting mip-NeRF on "catastrophic failure modes in which the MLP emits negative values
everywhere (in which case all gradients from tau are zero and optimization will fail)").
Here a flat scene: a dark disc in the plane seen from 24 directions by parallel rays,
each ray 32 samples composited over a white background, NeRF's positional encoding (6
octaves) into an 8-layer ReLU MLP of width 64, Adam 1e-3 on batches of 128 rays; every
fourth view held out.
Fix: mip-NeRF's shifted softplus, softplus(raw - 1), on the density: positive everywhere,
with a gradient everywhere.

Measured (300 steps, seed 5): PSNR on the training views 8.1 dB for the bug (a white
image), 27.9 dB for the twin; on the held-out views 8.0 dB against 17.7 dB.
"""
import math

import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._coordinate_fields import psnr

TITLE = "White space"
LINK = "https://github.com/munshisanowarraihan/nerf-meta/issues/3"
EXPECTED = ("DEAD_RELU", "NO_GRADIENT")
STEPS = 300
LR = 1e-3
BATCH = 128
VIEWS, RAYS, SAMPLES = 24, 32, 32
OCTAVES = 6
DEPTH, WIDTH = 8, 64
NEAR, FAR = 0.0, 3.0
DISC_CENTRE, DISC_RADIUS, DISC_DENSITY, DISC_GREY = (0.3, -0.2), 0.2, 40.0, 0.1


def ray_samples():
    """(views * rays, samples, 2) points: parallel rays across [-1, 1], one bundle a view."""
    angle = torch.arange(VIEWS) * 2 * math.pi / VIEWS
    direction = torch.stack([torch.cos(angle), torch.sin(angle)], -1)
    across = torch.stack([-torch.sin(angle), torch.cos(angle)], -1)
    offsets = torch.linspace(-1, 1, RAYS)
    origins = across[:, None] * offsets[None, :, None] - 1.5 * direction[:, None]
    depths = torch.linspace(NEAR, FAR, SAMPLES)
    points = origins[:, :, None] + depths[None, None, :, None] * direction[:, None, None]
    return points.reshape(VIEWS * RAYS, SAMPLES, 2)


def composite(density, grey):
    """Front-to-back alpha compositing over a white background (the NeRF quadrature)."""
    alpha = 1 - torch.exp(-density * (FAR - NEAR) / (SAMPLES - 1))
    transmittance = torch.cumprod(
        torch.cat([torch.ones_like(alpha[:, :1]), 1 - alpha[:, :-1] + 1e-10], 1), 1)
    weights = alpha * transmittance
    return (weights * grey).sum(1) + (1 - weights.sum(1))


def positional_encoding(points):
    scaled = points[..., None] * (2.0 ** torch.arange(OCTAVES) * math.pi)
    return torch.cat([points, torch.sin(scaled).flatten(-2), torch.cos(scaled).flatten(-2)], -1)


class RadianceField(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.fixed = fixed
        layers = [nn.Linear(2 + 4 * OCTAVES, WIDTH), nn.ReLU()]
        for _ in range(DEPTH - 1):
            layers += [nn.Linear(WIDTH, WIDTH), nn.ReLU()]
        self.mlp = nn.Sequential(*layers, nn.Linear(WIDTH, 2))

    def forward(self, points):
        raw = self.mlp(positional_encoding(points))
        if self.fixed:
            density = F.softplus(raw[..., 0] - 1)
        else:
            density = F.relu(raw[..., 0])              # BUG: zero, without gradient, below 0
        return composite(density, torch.sigmoid(raw[..., 1]))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(5)
    field = RadianceField(fixed)
    points = ray_samples()
    inside = ((points - torch.tensor(DISC_CENTRE)).norm(dim=-1) < DISC_RADIUS).float()
    views = composite(inside * DISC_DENSITY, torch.full_like(inside, DISC_GREY))
    view = torch.arange(VIEWS).repeat_interleave(RAYS)
    train = torch.nonzero(view % 4 != 0).squeeze(1)
    held_out = torch.nonzero(view % 4 == 0).squeeze(1)
    draw = torch.Generator().manual_seed(1)
    optimizer = torch.optim.Adam(field.parameters(), lr=LR)
    with nd.watch(field, optimizer, **watch) as mon:
        for _ in range(steps):
            rays = train[torch.randint(len(train), (BATCH,), generator=draw)]
            optimizer.zero_grad()
            loss = F.mse_loss(field(points[rays]), views[rays])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        rendered = field(points)
    # psnr takes values in [-1, 1]: grey levels in [0, 1] are mapped there
    mon.extra = {"train_psnr": psnr(2 * rendered[train] - 1, 2 * views[train] - 1),
                 "held_out_psnr": psnr(2 * rendered[held_out] - 1, 2 * views[held_out] - 1)}
    return mon
