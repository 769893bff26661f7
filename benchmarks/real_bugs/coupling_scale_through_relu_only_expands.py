"""A RealNVP whose coupling layers compute the log-scale with a ReLU as the last operation:
``s = relu(...)``, so ``exp(s) >= 1`` and every layer can only stretch the coordinate it
transforms, never shrink it. Mapping data to the unit Gaussian, a flow must shrink any
direction in which the data is wider than 1; this one cannot. The best it can do is keep
``s`` at 0 (the ReLU's inputs pushed negative, its output dead), shift, and leave the data's
wide spread in the latent space: the loss falls a little and settles far above what the
flow could reach.

Reported: "Question on tutorial" - https://github.com/xqding/RealNVP/issues/2 (why
``self.scale`` multiplies the scale network's output; the author: "Because we are using
torch.relu function at the end of _compute_scale, without self.scale, the scale function
will already return a positive number, which means the exp(scale) will be always larger
than 1, expanding the corresponding dimensions. Including self.scale can relax this
limitation ... you can also change the relu to other activation functions such as sigmoid
so that it can return both positive and negative numbers"). Here four couplings of a 2-D
RealNVP end their scale network with the ReLU and no factor (the bug), or with tanh (the
twin), and fit a 2-D density spread wider than the unit Gaussian (four Gaussians at
(+-3, +-3)).
Fix: end the scale network with an activation of both signs (tanh), or multiply the ReLU's
output by a learnable factor that can turn negative (the tutorial's ``self.scale``).

Measured (400 steps, Adam 3e-3, batch 128, seed 0): held-out negative log-likelihood 5.98
for the bug, 3.65 for the twin; the latent codes' standard deviation 2.04 for the bug
(0.98 for the twin).
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._flows import FlowStack, standard_normal_log_density

TITLE = "Question on tutorial"
LINK = "https://github.com/xqding/RealNVP/issues/2"
EXPECTED = ("DEAD_RELU",)
STEPS = 400
LR = 3e-3
BATCH = 128
LAYERS = 4
HELD_OUT = 2000
SPREAD = 3.0


def four_bumps(n, generator):
    signs = torch.randint(2, (n, 2), generator=generator) * 2 - 1
    return SPREAD * signs + 0.5 * torch.randn(n, 2, generator=generator)


class Coupling(nn.Module):
    """z_moved = x_moved * exp(s(x_kept)) + t(x_kept), with s from a ReLU network."""

    def __init__(self, keep, fixed):
        super().__init__()
        self.keep = keep
        self.scale_net = nn.Sequential(nn.Linear(1, 32), nn.ReLU(), nn.Linear(32, 1))
        self.shift_net = nn.Sequential(nn.Linear(1, 32), nn.ReLU(), nn.Linear(32, 1))
        self.fixed = fixed

    def forward(self, x):
        kept, moved = x[:, self.keep:self.keep + 1], x[:, 1 - self.keep:2 - self.keep]
        if self.fixed:
            log_scale = torch.tanh(self.scale_net(kept))   # either sign
        else:
            log_scale = torch.relu(self.scale_net(kept))   # BUG: never below 0
        moved = moved * torch.exp(log_scale) + self.shift_net(kept)
        out = torch.cat([kept, moved], 1) if self.keep == 0 else torch.cat([moved, kept], 1)
        return out, log_scale.squeeze(1)


class RealNVP(FlowStack):
    def __init__(self, fixed):
        super().__init__()
        self.layers = nn.ModuleList(Coupling(i % 2, fixed) for i in range(LAYERS))


def negative_log_likelihood(flow, x):
    """The mean NLL, and the latents (their spread is reported)."""
    z, log_det = flow(x)
    return -(standard_normal_log_density(z) + log_det).mean(), z


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    data = torch.Generator().manual_seed(1)
    flow = RealNVP(fixed)
    optimizer = torch.optim.Adam(flow.parameters(), lr=LR)
    with nd.watch(flow, optimizer, **watch) as mon:
        for _ in range(steps):
            optimizer.zero_grad()
            loss, _ = negative_log_likelihood(flow, four_bumps(BATCH, data))
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        nll, z = negative_log_likelihood(flow, four_bumps(HELD_OUT,
                                                          torch.Generator().manual_seed(2)))
    mon.extra = {"held_out_nll": round(float(nll), 3), "latent_std": round(float(z.std()), 2)}
    return mon
