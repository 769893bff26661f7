"""A VAE whose posterior is refined by planar normalizing flows (Rezende & Mohamed), with
the prior scored on the wrong end of the flow: the ELBO is written
log p(x | z_K) + log p(z_0) - log q_0(z_0) + sum_k log|det J_k|, with the standard-normal
prior evaluated at the encoder's draw z_0 where it must score the flow's output z_K (the
code the decoder reads). Nothing then ties z_K to the prior: the log-determinants are a
free reward for stretching, the flow stretches, and the decoder learns to read codes that
the prior never produces - the loss falls below the true bound while the model's true
ELBO on held-out digits is worse than the same model's with the prior at z_K.

Reported: "Fixes problem with Normalizing Flows" - https://github.com/casperkaae/parmesan/pull/21
(merged: "Fixes problem where p(z0) was used instead of p(zK), see eq. 15 of Rezende NF
paper", in parmesan's importance-weighted VAE example with planar flows). Here a small
MLP VAE on the 8x8 digits (64 -> 128 -> 2 x 8 latent; four planar flows with the
invertibility constraint on u; decoder 8 -> 128 -> 64 logits, Bernoulli cross-entropy on
the grey levels), Adam 2e-3, batch 64, 400 steps.
Fix: evaluate the prior at the flow's output: log p(z_K).

Measured (held-out negative ELBO with the prior at z_K, nats per image, one posterior
draw): 28.61 with the bug, 25.23 fixed; seeds + 1000: 29.80 vs 25.32. The bug's last
training loss is 25.7, below its own true bound.
"""
import math

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import classification
from benchmarks.real_bugs._hand_flows307 import HELD_OUT, batch_rows

TITLE = "Fixes problem with Normalizing Flows"
LINK = "https://github.com/casperkaae/parmesan/pull/21"
EXPECTED = ("LOSS_UNBOUNDED_BELOW",)
STEPS = 400
LR = 2e-3
BATCH = 64
LATENT = 8
FLOWS = 4


class PlanarFlow(nn.Module):
    """f(z) = z + u_hat * tanh(w.z + b), u_hat constrained so that f is invertible."""

    def __init__(self, dim):
        super().__init__()
        self.u = nn.Parameter(0.01 * torch.randn(dim))
        self.w = nn.Parameter(0.01 * torch.randn(dim))
        self.b = nn.Parameter(torch.zeros(1))

    def forward(self, z):
        wu = self.w @ self.u
        u_hat = self.u + (F.softplus(wu) - 1 - wu) * self.w / (self.w @ self.w + 1e-8)
        pre = z @ self.w + self.b
        z = z + u_hat * torch.tanh(pre).unsqueeze(1)
        slope = (1 - torch.tanh(pre) ** 2) * (self.w @ u_hat)
        return z, torch.log(torch.abs(1 + slope) + 1e-8)


class FlowVAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 2 * LATENT))
        self.flows = nn.ModuleList(PlanarFlow(LATENT) for _ in range(FLOWS))
        self.decoder = nn.Sequential(nn.Linear(LATENT, 128), nn.ReLU(), nn.Linear(128, 64))

    def forward(self, x):
        mu, log_var = self.encoder(x).chunk(2, dim=1)
        z0 = mu + torch.randn_like(mu) * torch.exp(0.5 * log_var)
        log_q0 = (-0.5 * ((z0 - mu) ** 2 / log_var.exp() + log_var + math.log(2 * math.pi))).sum(1)
        z, log_det = z0, torch.zeros(len(x))
        for flow in self.flows:
            z, layer_log_det = flow(z)
            log_det = log_det + layer_log_det
        return self.decoder(z), z0, z, log_q0, log_det


def standard_normal(z):
    return (-0.5 * z ** 2 - 0.5 * math.log(2 * math.pi)).sum(1)


def negative_elbo(model, x, prior_at_output=True):
    logits, z0, zk, log_q0, log_det = model(x)
    log_px = -F.binary_cross_entropy_with_logits(logits, x, reduction="none").sum(1)
    log_prior = standard_normal(zk) if prior_at_output else standard_normal(z0)
    return -(log_px + log_prior - log_q0 + log_det)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, _ = classification()
    order = torch.from_numpy(np.random.default_rng(0).permutation(len(x)))
    x = x[order]
    train, held_out = x[:-HELD_OUT], x[-HELD_OUT:]
    model = FlowVAE()
    optimizer = torch.optim.Adam(model.parameters(), lr=LR)
    with nd.watch(model, optimizer, **watch) as mon:
        for rows in batch_rows(len(train), steps, BATCH, seed=2):
            optimizer.zero_grad()
            # BUG (fixed=False): the prior scores z_0, the encoder's draw, not the flow's z_K
            loss = negative_elbo(model, train[rows], prior_at_output=fixed).mean()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    torch.manual_seed(3)
    with torch.no_grad():
        mon.held_out_nll = float(negative_elbo(model, held_out).mean())
        mon.final_loss = float(loss)
    return mon
