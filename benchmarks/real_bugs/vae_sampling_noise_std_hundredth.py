"""A VAE whose reparameterisation scales its standard normal noise by 0.01 (an
``epsilon_std = 0.01`` left in the sampling function): z = mu + 0.01 * eps * std. The KL
term still charges for the posterior N(mu, std^2), but the decoder only ever sees draws
a hundred times narrower, so the loss is no longer the variational bound: the posterior
spreads to the prior at no cost while the decoder is trained on near-deterministic codes,
and under its proper ELBO the trained model is far worse.

Reported: "changed VAE sampling variance to 1" - https://github.com/keras-team/keras/pull/4211
(merged; the Keras VAE example drew its noise with std 0.01, and the PR says the
reparameterisation needs variance 1, otherwise the objective printed is not the lower
bound, "way lower than what it should be"). Here a small MLP VAE on the 8x8 digits.
Fix: epsilon_std = 1 (eps = torch.randn_like(std)).

Measured (600 steps; the proper negative ELBO per image on all 1,797 digits, posterior
draws with standard normal noise from a fixed generator): bug 73.3, fixed twin 24.7.

As it came watch named nothing: a smaller noise makes an easier, smoothly falling loss.

How watch finds it: the draw's noise (from outside the graph, multiplying exp of an encoder
output the KL also reads) has std 0.01 on every measured step, not 1:
VAE_NOISE_NOT_STANDARD_NORMAL.
"""
import torch
from torch import nn

from benchmarks.real_bugs._vae import train_vae

TITLE = "changed VAE sampling variance to 1"
LINK = "https://github.com/keras-team/keras/pull/4211"
EXPECTED = ("VAE_NOISE_NOT_STANDARD_NORMAL",)
STEPS = 600
LR = 3e-3
LATENT = 8


EPSILON_STD = 0.01


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
            eps = EPSILON_STD * torch.randn_like(std)   # BUG: the noise is N(0, 0.01^2)
        return mu + eps * std

    def forward(self, x, proper=False):
        mu, logvar = self.encoder(x).chunk(2, dim=1)
        return self.decoder(self.reparameterise(mu, logvar, proper)), mu, logvar


def run(fixed=False, steps=STEPS, **watch):
    return train_vae(lambda: VAE(fixed), steps, LR, **watch)
