"""A Glow re-implemented by hand without its ActNorm layers. Glow's affine coupling takes
its scale as ``sigmoid(raw + 2)``, a number in (0, 1): every coupling can only CONTRACT
the half it transforms, and its log-determinant is never positive. In Glow the ActNorm
before each coupling is what can expand (a learned per-channel scale, started from the
data's statistics); leave it out and nothing in the flow can stretch the data. The digits'
dequantised pixels are spread far narrower than the unit Gaussian the base expects (a std
of 0.1-0.3), so the flow's best is to push every sigmoid towards its ceiling of 1 and
leave the data as narrow as it came: the loss falls a little, then settles far above
what the same flow with ActNorm reaches.

Reported: "what sorts of loss values do you see?" - https://github.com/chaiyujin/glow-pytorch/issues/5
(re-implementing Glow, "I am finding it difficult to drop lower than 9ish ... thanks to
the `sigmoid(scale + 2)` the logdet must always be negative"; then: "I was not
implementing ActNorm, which produces positive logdet terms."). Here a Glow-style flow on
the 8x8 digits (squeezed to 4 channels of 4x4; four steps of [ActNorm,] affine coupling
with the sigmoid scale, channel reversal), dequantised pixels, Adam 2e-3, batch 64, 200
steps.
Fix: put the ActNorm (per-channel scale and bias, data-initialised; log-determinant
H x W x sum(log|scale|)) back before every coupling.

Measured (held-out negative log-likelihood of dequantised digits, nats per pixel): 0.944
with the bug, -0.529 fixed; seeds + 1000: 0.942 vs -0.538. Every sigmoid scale of the
trained bug lies above 0.99 on held-out digits (mean 0.9998), and its latent codes keep a
standard deviation of 0.22.
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._hand_flows307 import (batch_rows, conditioner, dequantise,
                                                  nats_per_pixel, pixel_levels, squeeze,
                                                  standard_normal_log_density)

TITLE = "what sorts of loss values do you see?"
LINK = "https://github.com/chaiyujin/glow-pytorch/issues/5"
EXPECTED = ("SATURATED_ACTIVATIONS",)
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


class GlowCoupling(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = conditioner()

    def forward(self, x):
        kept, moved = x[:, :2], x[:, 2:]
        shift, raw = self.net(kept).chunk(2, dim=1)
        scale = torch.sigmoid(raw + 2)                      # Glow's scale: in (0, 1)
        moved = (moved + shift) * scale
        return torch.cat([kept, moved], 1), torch.log(scale).flatten(1).sum(1)


class Glow(nn.Module):
    def __init__(self, actnorm):
        super().__init__()
        layers = []
        for _ in range(FLOW_STEPS):
            if actnorm:
                layers.append(ActNorm(4))
            layers.append(GlowCoupling())
        self.layers = nn.ModuleList(layers)

    def forward(self, x):
        z, log_det = squeeze(x), torch.zeros(len(x))
        for layer in self.layers:
            z, layer_log_det = layer(z)
            log_det = log_det + layer_log_det
            if isinstance(layer, GlowCoupling):
                z = z.flip(1)                               # reverse the channels
        return z, log_det


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, held_out = pixel_levels()
    noise = np.random.default_rng(1)
    flow = Glow(actnorm=fixed)          # BUG: Glow's ActNorm left out (fixed: before each coupling)
    optimizer = torch.optim.Adam(flow.parameters(), lr=LR)
    with nd.watch(flow, optimizer, **watch) as mon:
        for rows in batch_rows(len(train), steps, BATCH, seed=2):
            x = dequantise(train[rows], noise)
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
    return mon
