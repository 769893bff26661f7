"""A VAE that draws its code z = mu + eps * std and then decodes ``mu``: the sample is
computed and thrown away. The reconstruction never sees noise, so the log variance is
trained by the KL term alone (it goes to 0, std to 1, whatever the data) and the decoder
learns only the posterior means: the model is a deterministic autoencoder with an L2
pull on its codes, and decoding draws from the posterior (or the prior) gives poor images.

Reported: "question for class VAE(AE)" - https://github.com/dmis-lab/VAECox/issues/6
("z = self._reparameterize(mu, logvar)" then "recon = self.decode(mu)": "Shouldn't the
input to our decoder be the reparameterized variable z instead of mu?"). Here a small MLP
VAE on the 8x8 digits written as the report's. Fix: recon = self.decode(z).

Measured (600 steps; the proper negative ELBO per image on all 1,797 digits, posterior
draws with standard normal noise from a fixed generator): bug 74.7, fixed twin 24.7.

As it came watch named nothing: the reconstruction of mu trains as well as an
autoencoder's.

How watch finds it: the loss holds a Gaussian KL of two outputs of one encoder (mu ** 2 of
one, exp of the other) and reads no noise draw at all on every measured step:
VAE_SAMPLE_NOT_DECODED.
"""
import torch
from torch import nn

from benchmarks.real_bugs._vae import train_vae

TITLE = "question for class VAE(AE)"
LINK = "https://github.com/dmis-lab/VAECox/issues/6"
EXPECTED = ("VAE_SAMPLE_NOT_DECODED",)
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
        z = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)
        if self.fixed or proper:
            return self.decoder(z), mu, logvar
        return self.decoder(mu), mu, logvar     # BUG: the sample z is never decoded


def run(fixed=False, steps=STEPS, **watch):
    return train_vae(lambda: VAE(fixed), steps, LR, **watch)
