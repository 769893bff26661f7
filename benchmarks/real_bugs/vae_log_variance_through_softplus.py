"""A VAE whose encoder passes its log variance through a softplus: logvar = softplus(h) >= 0,
so the posterior's standard deviation exp(0.5 * logvar) is never below 1, the prior's. Each
code is at least as uncertain as the prior itself; the decoder can only tell images apart
by means pushed far out, which the KL charges for, and reconstructions stay blurred.

Reported: "VAE model have some problems." -
https://github.com/masato-ka/airc-rl-agent/issues/43 (the author lists as an implementation
error that "the softplus function is applied to the Variance output by the encoder";
fixed in release 1.6.0). Here a small MLP VAE on the 8x8 digits. Fix: leave the log
variance unbounded (logvar = fc_logvar(h)).

Measured (600 steps; the proper negative ELBO per image on all 1,797 digits, posterior
draws with standard normal noise from a fixed generator): bug 26.0, fixed twin 24.7.

As it came watch named nothing: the loss falls and every gradient is healthy.

How watch finds it: the draw's scale is exp of a value made non-negative on its way from
the encoder (a softplus), and every std drawn is >= 1 on every measured step:
VAE_STD_NEVER_BELOW_PRIOR.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "VAE model have some problems."
LINK = "https://github.com/masato-ka/airc-rl-agent/issues/43"
EXPECTED = ("VAE_STD_NEVER_BELOW_PRIOR",)
STEPS = 600
LR = 3e-3
LATENT = 8


class VAE(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.fixed = fixed
        self.encoder = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 2 * LATENT))
        self.decoder = nn.Sequential(nn.Linear(LATENT, 64), nn.ReLU(), nn.Linear(64, 64))

    def forward(self, x, proper=False):
        mu, logvar = self.encoder(x).chunk(2, dim=1)
        if not self.fixed:
            logvar = F.softplus(logvar)     # BUG: a log variance made >= 0: std >= 1
        z = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)
        return self.decoder(z), mu, logvar


def vae_loss(logits, x, mu, logvar):
    recon = F.binary_cross_entropy_with_logits(logits, x, reduction="sum") / len(x)
    kl = -0.5 * (1 + logvar - mu ** 2 - logvar.exp()).sum(1).mean()
    return recon + kl


def negative_elbo(model, x):
    """The proper per-image negative ELBO, standard normal noise (a fixed generator)."""
    state = torch.random.get_rng_state()
    torch.manual_seed(12345)
    with torch.no_grad():
        logits, mu, logvar = model(x, proper=True)
        value = vae_loss(logits, x, mu, logvar).item()
    torch.random.set_rng_state(state)
    return value


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = VAE(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=LR)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, _ in batches(x, y, steps):
            optimizer.zero_grad()
            logits, mu, logvar = model(xb)
            loss = vae_loss(logits, xb, mu, logvar)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.elbo = negative_elbo(model, x)
    return mon
