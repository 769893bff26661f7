"""A RealNVP density model whose coupling layers return their log-determinant summed over
the whole batch, a single number, which is then added to every sample's log-density. The
change-of-variables term log|det J| of each sample is replaced by the sum of all the
batch's, so after the mean it weighs batch-size times what it should against the base
density's term. Maximising it, the flow stretches its latent space far beyond a unit
Gaussian (expansion pays 128 times over): the loss falls and settles, but the model's true
likelihood of the data is poor and its samples are squeezed towards the data's centre.

Reported: "Norm. flows bug maybe" -
https://github.com/wohlert/semi-supervised-pytorch/issues/21 (``qz = log_gaussian(z, mu,
log_var) - sum(log_det_z)``: "The first one and log_det_z are of batch size dim but the
sum(log_det_z) is a scalar. Actually the sum was already taken [in the flow layer]";
the author: "I believe you might be right"). There the flow refines a VAE's posterior;
here the same term in a plain density flow (four affine coupling layers) fitted by maximum
likelihood to a 2-D mixture of eight Gaussians on a circle.
Fix: sum each sample's log-scales over its features only (``log_scale.sum(1)``), keeping
one log-determinant per sample.

Measured (400 steps, Adam 3e-3, batch 128, seed 0): held-out negative log-likelihood
(computed correctly) 120.1 for the bug, 3.17 for the twin; the bug's latent codes of
held-out data have standard deviation 11.1 (the twin's 0.85).
"""
import math

import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._flows import standard_normal_log_density

TITLE = "Norm. flows bug maybe"
LINK = "https://github.com/wohlert/semi-supervised-pytorch/issues/21"
EXPECTED = ("LOSS_TERMS_REDUCED_DIFFERENTLY",)
STEPS = 400
LR = 3e-3
BATCH = 128
LAYERS = 4
MODES = 8
HELD_OUT = 2000


def circle_of_gaussians(n, generator):
    angle = 2 * math.pi * torch.randint(MODES, (n,), generator=generator) / MODES
    centres = 2.0 * torch.stack([torch.cos(angle), torch.sin(angle)], 1)
    return centres + 0.25 * torch.randn(n, 2, generator=generator)


class AffineCoupling(nn.Module):
    def __init__(self, keep, fixed):
        super().__init__()
        self.keep, self.fixed = keep, fixed
        self.net = nn.Sequential(nn.Linear(1, 64), nn.ReLU(), nn.Linear(64, 2))

    def forward(self, x):
        kept, moved = x[:, self.keep:self.keep + 1], x[:, 1 - self.keep:2 - self.keep]
        log_scale, shift = self.net(kept).chunk(2, dim=1)
        log_scale = 3 * torch.tanh(log_scale / 3)
        moved = moved * torch.exp(log_scale) + shift
        out = torch.cat([kept, moved], 1) if self.keep == 0 else torch.cat([moved, kept], 1)
        if self.fixed:
            return out, log_scale.sum(1)             # one log-determinant per sample
        return out, log_scale.sum()                  # BUG: summed over the batch too


class RealNVP(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.layers = nn.ModuleList(AffineCoupling(i % 2, fixed) for i in range(LAYERS))

    def forward(self, x):
        log_det = 0
        for layer in self.layers:
            x, layer_log_det = layer(x)
            log_det = log_det + layer_log_det
        return x, log_det


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    data = torch.Generator().manual_seed(1)
    flow = RealNVP(fixed)
    optimizer = torch.optim.Adam(flow.parameters(), lr=LR)
    with nd.watch(flow, optimizer, **watch) as mon:
        for _ in range(steps):
            optimizer.zero_grad()
            z, log_det = flow(circle_of_gaussians(BATCH, data))
            loss = -(standard_normal_log_density(z) + log_det).mean()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    held_out = circle_of_gaussians(HELD_OUT, torch.Generator().manual_seed(2))
    with torch.no_grad():
        for layer in flow.layers:
            layer.fixed = True                       # the true per-sample log-determinant
        z, log_det = flow(held_out)
        nll = -(standard_normal_log_density(z) + log_det).mean()
    mon.extra = {"held_out_nll": round(float(nll), 3), "latent_std": round(float(z.std()), 2)}
    return mon
