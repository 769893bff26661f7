"""An importance-weighted autoencoder (IWAE) whose normalised importance weights are left
in the graph. The IWAE gradient is ``sum_k w_k * grad log w~_k`` with ``w = softmax(log
w~)`` treated as constants; written as the loss ``-(w * log w~).sum()`` it is right only
if ``w`` is detached. Without the detach the gradient gains ``sum_k (grad w_k) log w~_k``,
which rewards making one sample's weight dominate rather than making the samples fit: the
encoder is pushed toward a few lucky draws, the bound it trains is not the IWAE bound, and
the loss still falls.

Reported: "Not Detach Problem of IWAE ELBO Loss" -
https://github.com/AntixK/PyTorch-VAE/issues/34 (the weight ``softmax(log_weight)`` was not
detached - the ``.detach()`` sat in a comment; a later pull request,
https://github.com/AntixK/PyTorch-VAE/pull/53, spells out that without it the gradient
carries an extra ``grad w * ELBO`` term and detaches the weights). Here a small Bernoulli
IWAE (64 -> 128 -> 8 latents) on the 8x8 digits binarised, 20 importance samples, Adam.
Fix: ``w.detach()``.

Measured (2,000 steps of 64; held-out negative IWAE bound with 50 samples on 597 digits,
in nats per image): seed 0, 18.32 for the bug against 17.81 for the fixed twin; seeds
shifted by 1000, 18.45 against 17.92 (with 5 samples and 600 steps the gap was only 0.1-0.4
nats).
"""
import math

import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import classification, index_batches

TITLE = "Not Detach Problem of IWAE ELBO Loss"
LINK = "https://github.com/AntixK/PyTorch-VAE/issues/34"
EXPECTED = ("IMPORTANCE_WEIGHTS_NOT_DETACHED",)
STEPS = 2000
SAMPLES, LATENT, HELD_OUT = 20, 8, 597


class IWAE(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.Tanh(),
                                           torch.nn.Linear(128, 2 * LATENT))
        self.decoder = torch.nn.Sequential(torch.nn.Linear(LATENT, 128), torch.nn.Tanh(),
                                           torch.nn.Linear(128, 64))

    def forward(self, x, samples):
        """log w~ of ``samples`` draws per image: (B, samples)."""
        mu, log_std = self.encoder(x).chunk(2, dim=-1)
        eps = torch.randn(x.shape[0], samples, LATENT)
        z = mu.unsqueeze(1) + log_std.exp().unsqueeze(1) * eps
        logits = self.decoder(z)
        log_px = -F.binary_cross_entropy_with_logits(
            logits, x.unsqueeze(1).expand_as(logits), reduction="none").sum(-1)
        log_pz = (-0.5 * z ** 2 - 0.5 * math.log(2 * math.pi)).sum(-1)
        log_qz = (-0.5 * eps ** 2 - log_std.unsqueeze(1)
                  - 0.5 * math.log(2 * math.pi)).sum(-1)
        return log_px + log_pz - log_qz


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, _ = classification()
    x = (x > 0.5).float()
    perm = torch.randperm(len(x))
    train, test = x[perm[HELD_OUT:]], x[perm[:HELD_OUT]]
    model = IWAE()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(train), steps, 64, seed=0):
            log_w = model(train[index], SAMPLES)
            w = torch.softmax(log_w, dim=1)
            if fixed:
                w = w.detach()
            # BUG (fixed=False): w keeps its graph, adding sum_k (grad w_k) log w~_k
            loss = -(w * log_w).sum(1).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        log_w = model(test, 50)
        bound = torch.logsumexp(log_w, dim=1) - math.log(50)
    mon.held_out_negative_iwae_bound = -bound.mean().item()
    return mon
