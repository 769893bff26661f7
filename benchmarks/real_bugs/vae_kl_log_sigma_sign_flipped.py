"""A VAE whose KL term carries its log-sigma term with the wrong sign: KL(N(mu, sigma) ||
N(0, 1)) = 0.5 * (sigma^2 + mu^2 - 1 - 2 log sigma) is written with + 2 log sigma. The
"KL" then has no minimum: shrinking sigma lowers it without bound, so the encoder's sigma
collapses towards zero, the loss falls forever, and the latent codes are free to drift away
from the prior (what sampling from N(0, 1) relies on).

Reported: "Another mistake in KL-divergence equation vae.jl" -
https://github.com/FluxML/model-zoo/pull/147 ("in KL-divergence equation we should have
2*log(sigma) instead of log(sigma).^2 but the other mistake is the sign of this which should
be -2*log(sigma)"; merged: "You're totally right, not sure how this slipped through").
Here a small MLP VAE on the 8x8 digits, encoder giving mu and log sigma as the report's
does. Fix: 0.5 * (sigma^2 + mu^2 - 1 - 2 log sigma).

After 600 steps the bug's loss is about -50,000 and falling, and its true negative ELBO
55,365 per image; the fixed twin's 24.8.

As it came watch named only a symptom, LOSS_OSCILLATING: every parameter trains and the
gradients are healthy. How watch finds it: the loss falls far below zero (over 100x its
starting magnitude) and keeps falling no slower, which a proper negative ELBO, bounded
below, never does: LOSS_UNBOUNDED_BELOW.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "Another mistake in KL-divergence equation vae.jl"
LINK = "https://github.com/FluxML/model-zoo/pull/147"
EXPECTED = ("LOSS_UNBOUNDED_BELOW",)
STEPS = 600
LR = 3e-3
LATENT = 8


class VAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 2 * LATENT))
        self.decoder = nn.Sequential(nn.Linear(LATENT, 64), nn.ReLU(), nn.Linear(64, 64))

    def forward(self, x):
        mu, log_sigma = self.encoder(x).chunk(2, dim=1)
        z = mu + torch.randn_like(mu) * torch.exp(log_sigma)
        return self.decoder(z), mu, log_sigma


def negative_elbo(model, x):
    """The proper per-image negative ELBO (what the fixed twin minimises)."""
    with torch.no_grad():
        logits, mu, log_sigma = model(x)
        recon = F.binary_cross_entropy_with_logits(logits, x, reduction="sum") / len(x)
        kl = 0.5 * (torch.exp(2 * log_sigma) + mu ** 2 - 1 - 2 * log_sigma).sum(1).mean()
    return (recon + kl).item()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = VAE()
    optimizer = torch.optim.Adam(model.parameters(), lr=LR)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, _ in batches(x, y, steps):
            optimizer.zero_grad()
            logits, mu, log_sigma = model(xb)
            recon = F.binary_cross_entropy_with_logits(logits, xb, reduction="sum") / len(xb)
            if fixed:
                kl_units = 0.5 * (torch.exp(2 * log_sigma) + mu ** 2 - 1 - 2 * log_sigma)
            else:
                # BUG: + 2 log sigma: the term rewards an ever smaller sigma
                kl_units = 0.5 * (torch.exp(2 * log_sigma) + mu ** 2 - 1 + 2 * log_sigma)
            loss = recon + kl_units.sum(1).mean()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.elbo = negative_elbo(model, x)
    return mon
