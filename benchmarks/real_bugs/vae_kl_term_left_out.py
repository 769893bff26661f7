"""A VAE trained on its reconstruction error alone: the KL term that pulls each posterior
towards the prior was dropped from the loss. The model trains as a plain autoencoder, the
posteriors' variances shrink and their means spread far from N(0, 1), so the ELBO is poor
and decoding prior samples gives no digits.

Reported: "beta=0.1 used for reference VAE" -
https://github.com/facebookresearch/irmae/issues/1 ("I can not find the KL term ... Did you
remove the regularization in the end?"; the authors: "It's a mistake in our last update.
Here's what it should look like: loss = F.binary_cross_entropy(x_hat, x); loss -=
self.args.beta * torch.mean(1 + logvar - mu.pow(2) - logvar.exp())"). Here a small MLP VAE
on the 8x8 digits with the authors' loss (beta 0.1). Fix: add the KL term back.

After 600 steps the bug's per-pixel negative ELBO (beta 0.1) is 2.13, the fixed twin's 0.41.

As it came watch was silent: the loss is a healthy reconstruction loss that falls smoothly,
and the encoder's log-variance head still gets a gradient through the sampled code. How
watch finds it: on the first recorded steps the model's forward graph holds z = mu + eps *
exp(0.5 * logvar), a product of standard normal noise (outside the graph) and a positive
map of an activation, and in the loss's graph that scale, and logvar under it, feed nothing
but the noise product: no term penalises the posterior's spread. VAE_KL_TERM_MISSING.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "beta=0.1 used for reference VAE"
LINK = "https://github.com/facebookresearch/irmae/issues/1"
EXPECTED = ("VAE_KL_TERM_MISSING",)
STEPS = 600
LR = 3e-3
LATENT = 8
BETA = 0.1


class VAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 2 * LATENT))
        self.decoder = nn.Sequential(nn.Linear(LATENT, 64), nn.ReLU(), nn.Linear(64, 64),
                                     nn.Sigmoid())

    def forward(self, x):
        mu, logvar = self.encoder(x).chunk(2, dim=1)
        z = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)
        return self.decoder(z), mu, logvar


def negative_elbo(model, x):
    """Per-pixel negative ELBO with the authors' beta (what the fixed twin minimises)."""
    with torch.no_grad():
        recon, mu, logvar = model(x)
        kl = -torch.mean(1 + logvar - mu.pow(2) - logvar.exp())
        return (F.binary_cross_entropy(recon, x) + BETA * kl).item()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = VAE()
    optimizer = torch.optim.Adam(model.parameters(), lr=LR)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, _ in batches(x, y, steps):
            optimizer.zero_grad()
            recon, mu, logvar = model(xb)
            loss = F.binary_cross_entropy(recon, xb)
            if fixed:
                loss = loss - BETA * torch.mean(1 + logvar - mu.pow(2) - logvar.exp())
            # BUG (when not fixed): the KL term is missing, the VAE is an autoencoder
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.elbo = negative_elbo(model, x)
    return mon
