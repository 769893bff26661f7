"""A VAE whose reparameterisation draws its noise with ``torch.rand_like`` (uniform on
[0, 1)) where ``torch.randn_like`` (standard normal) was meant: z = mu + eps * std with eps
of mean 0.5 and std 0.29. The noise the decoder learns under is neither centred nor of
unit variance, so the KL term (which assumes eps ~ N(0, 1)) charges for a posterior the
model never samples from, and the trained model is worse under its own proper ELBO.

Reported: "use randn_like, rand_like - uniform" -
https://github.com/dferendo/RecommendationSystem/issues/3 (a list-CVAE's reparameterise
line uses rand_like; the report points at the line and says randn_like was meant, rand_like
being uniform). Here a small MLP VAE on the 8x8 digits (the report's model is a CVAE over
item slates; the line is the same). Fix: eps = torch.randn_like(std).

Measured (600 steps; the proper negative ELBO per image on all 1,797 digits, posterior
draws with standard normal noise from a fixed generator): bug 34.9, fixed twin 24.7.

As it came watch named nothing: the loss falls and every gradient is healthy; the noise
only looks odd in its distribution.

How watch finds it: in the forward's graph the draw is a product of noise from outside the
graph and exp of an encoder output whose log variance the KL also reads; that noise has
mean 0.5 and std 0.29 on every measured step, not N(0, 1): VAE_NOISE_NOT_STANDARD_NORMAL.
"""
import torch
from torch import nn

from benchmarks.real_bugs._vae import train_vae

TITLE = "use randn_like, rand_like - uniform"
LINK = "https://github.com/dferendo/RecommendationSystem/issues/3"
EXPECTED = ("VAE_NOISE_NOT_STANDARD_NORMAL",)
STEPS = 600
LR = 3e-3
LATENT = 8


class VAE(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.fixed = fixed
        self.encoder = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 2 * LATENT))
        self.decoder = nn.Sequential(nn.Linear(LATENT, 64), nn.ReLU(), nn.Linear(64, 64))

    def reparameterise(self, mu, logvar, proper=False):
        std = torch.exp(0.5 * logvar)
        if self.fixed or proper:
            eps = torch.randn_like(std)
        else:
            eps = torch.rand_like(std)     # BUG: uniform on [0, 1), not N(0, 1)
        return mu + eps * std

    def forward(self, x, proper=False):
        mu, logvar = self.encoder(x).chunk(2, dim=1)
        return self.decoder(self.reparameterise(mu, logvar, proper)), mu, logvar


def run(fixed=False, steps=STEPS, **watch):
    return train_vae(lambda: VAE(fixed), steps, LR, **watch)
