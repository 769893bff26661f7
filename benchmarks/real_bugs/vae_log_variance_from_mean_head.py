"""A VAE whose encoder has a mean head and a log-variance head, but the log variance is
computed with the mean head: ``mu, logvar = fc_mean(h), fc_mean(h)``. The posterior's
log variance is then forced to equal its mean in every unit, so the encoder cannot place
a code away from 0 without also widening (mu > 0) or collapsing (mu < 0) its noise; the
log-variance head gets no gradient at all.

Reported: "LPBNN_layers bug?" - https://github.com/giannifranchi/LP_BNN/issues/3 (the
layer computes ``embedded_mean, embedded_logvar`` both with ``encoder_fcmean``, "enforcing
that the mean and logvar are the same"; the authors: "We will correct that mistake").
Here a small MLP VAE on the 8x8 digits with the report's two heads. Fix: logvar =
fc_logvar(h).

Measured (600 steps; the proper negative ELBO per image on all 1,797 digits, posterior
draws with standard normal noise from a fixed generator): bug 26.5, fixed twin 24.7.

As it came watch named only NO_GRADIENT (the log-variance head gets no gradient), a
symptom: it does not say the mean head is read twice.

How watch finds it: the mean added in z = mu + eps * std and the log variance under std are
the same layer over the same input (two calls of fc_mean on h) on every measured step:
VAE_MEAN_AND_SCALE_FROM_ONE_OUTPUT.
"""
import torch
from torch import nn

from benchmarks.real_bugs._vae import train_vae

TITLE = "LPBNN_layers bug?"
LINK = "https://github.com/giannifranchi/LP_BNN/issues/3"
EXPECTED = ("VAE_MEAN_AND_SCALE_FROM_ONE_OUTPUT",)
STEPS = 600
LR = 3e-3
LATENT = 8


class VAE(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.fixed = fixed
        self.body = nn.Sequential(nn.Linear(64, 64), nn.ReLU())
        self.fc_mean = nn.Linear(64, LATENT)
        self.fc_logvar = nn.Linear(64, LATENT)
        self.decoder = nn.Sequential(nn.Linear(LATENT, 64), nn.ReLU(), nn.Linear(64, 64))

    def encode(self, x):
        h = self.body(x)
        if self.fixed:
            return self.fc_mean(h), self.fc_logvar(h)
        return self.fc_mean(h), self.fc_mean(h)   # BUG: the log variance from the mean head

    def forward(self, x, proper=False):
        mu, logvar = self.encode(x)
        z = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)
        return self.decoder(z), mu, logvar


def run(fixed=False, steps=STEPS, **watch):
    return train_vae(lambda: VAE(fixed), steps, LR, **watch)
