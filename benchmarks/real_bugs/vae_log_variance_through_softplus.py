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

from benchmarks.real_bugs._vae import train_vae

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


def run(fixed=False, steps=STEPS, **watch):
    return train_vae(lambda: VAE(fixed), steps, LR, **watch)
