"""A Glow-style flow fitted to the digits' pixels as they are stored - 17 discrete levels,
scaled to [-0.5, 0.5] - without the uniform noise that dequantises them. A density on
continuous values can pile unbounded mass onto a discrete set of points: the flow learns
to squeeze every pixel onto its levels (and the border pixels that are 0 in every image
onto one point), the loss falls far below zero and keeps falling, and the model says
little about the images themselves: on dequantised held-out digits, which is what its
likelihood bound on discrete data is measured on, it is far worse than the same flow
trained with the noise.

Reported: "Why do you add this uniform noise to the inputs?" -
https://github.com/openai/glow/issues/43 (the Glow paper does not mention the step:
"Is it necessary to add this noise? Will it have any impact on the result?"; the answer:
"This is a trick used to convert discrete values of color (e.g., 0..255) to continuous
values", NICE's dequantisation). Here a flow of four [ActNorm, affine coupling with a
tanh-bounded log-scale, channel reversal] steps on the 8x8 digits (squeezed to 4 channels
of 4x4), Adam 2e-3, batch 64, 200 steps. The bug's training loss falls from 24 to -39 by
step 60 and on to -62 at the end (the twin's ends at -49).
Fix: add uniform noise inside each level's bin to every training batch, drawn anew each
time: (level + u) / 17 - 0.5, u ~ U[0, 1).

Measured (held-out negative log-likelihood of dequantised digits, nats per pixel): 0.506
with the bug, -0.767 fixed; seeds + 1000: 0.152 vs -0.777.
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._hand_flows307 import (LEVELS, batch_rows, conditioner,
                                                  dequantise, nats_per_pixel, pixel_levels,
                                                  squeeze, standard_normal_log_density)

TITLE = "Why do you add this uniform noise to the inputs?"
LINK = "https://github.com/openai/glow/issues/43"
EXPECTED = ("LOSS_UNBOUNDED_BELOW", "CONSTANT_INPUTS")
STEPS = 200
LR = 2e-3
BATCH = 64
FLOW_STEPS = 4


class ActNorm(nn.Module):
    """Per-channel affine map, initialised from the first batch (zero mean, unit std)."""

    def __init__(self, channels):
        super().__init__()
        self.bias = nn.Parameter(torch.zeros(1, channels, 1, 1))
        self.log_scale = nn.Parameter(torch.zeros(1, channels, 1, 1))
        self.register_buffer("initialised", torch.tensor(0))

    def forward(self, x):
        if not self.initialised:
            with torch.no_grad():
                self.bias.copy_(-x.mean((0, 2, 3), keepdim=True))
                self.log_scale.copy_(-torch.log(x.std((0, 2, 3), keepdim=True) + 1e-6))
                self.initialised.fill_(1)
        pixels = x.shape[2] * x.shape[3]
        return (x + self.bias) * torch.exp(self.log_scale), \
            pixels * self.log_scale.sum().expand(len(x))


class AffineCoupling(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = conditioner()

    def forward(self, x):
        kept, moved = x[:, :2], x[:, 2:]
        raw, shift = self.net(kept).chunk(2, dim=1)
        log_scale = 2 * torch.tanh(raw / 2)
        moved = moved * torch.exp(log_scale) + shift
        return torch.cat([kept, moved], 1), log_scale.flatten(1).sum(1)


class Flow(nn.Module):
    def __init__(self):
        super().__init__()
        layers = []
        for _ in range(FLOW_STEPS):
            layers += [ActNorm(4), AffineCoupling()]
        self.layers = nn.ModuleList(layers)

    def forward(self, x):
        z, log_det = squeeze(x), torch.zeros(len(x))
        for layer in self.layers:
            z, layer_log_det = layer(z)
            log_det = log_det + layer_log_det
            if isinstance(layer, AffineCoupling):
                z = z.flip(1)                               # reverse the channels
        return z, log_det


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, held_out = pixel_levels()
    noise = np.random.default_rng(1)
    flow = Flow()
    optimizer = torch.optim.Adam(flow.parameters(), lr=LR)
    with nd.watch(flow, optimizer, **watch) as mon:
        for rows in batch_rows(len(train), steps, BATCH, seed=2):
            if fixed:
                x = dequantise(train[rows], noise)
            else:
                x = train[rows] / LEVELS - 0.5               # BUG: the stored levels, no noise
            optimizer.zero_grad()
            z, log_det = flow(x)
            loss = -(standard_normal_log_density(z) + log_det).mean()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        x = dequantise(held_out, np.random.default_rng(3))
        z, log_det = flow(x)
        mon.held_out_nll = nats_per_pixel(standard_normal_log_density(z) + log_det)
        mon.final_loss = float(loss)
    return mon
