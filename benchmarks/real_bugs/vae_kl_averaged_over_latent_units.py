"""A VAE whose KL term is averaged over the latent units instead of summed:
``kl = -0.5 * mean(1 + z_log_var - z_mean ** 2 - exp(z_log_var), axis=-1)`` next to a
reconstruction summed over the pixels. The KL of a diagonal Gaussian is the SUM of its
units' KLs; the mean weighs it 1/latent as much (here 1/16), so the encoder spreads its
posteriors far from the prior, the model no longer optimises its ELBO and the held-out
bound is much worse (reconstructions are sharp; the latent space is not the prior the
decoder will be sampled from).

Reported: "KL divergence term in loss function" - https://github.com/mkusner/grammarVAE/issues/2
("I believe there is a bug in the implementation of the VAE loss. You take the mean over
the latent dimension rather than the sum ... should be K.sum(..., axis=-1)"; the same
line in keras-molecules; the author agrees that the sum is the VAE loss but kept the mean
because it helped their reconstructions, suggesting a KL weight annealed to 1 as "a more
principled thing to do ... to optimize the true VAE loss at the end of training"). Here a
small MLP VAE on the 8x8 digits (1400 for training, 397 held out), a 16-unit Gaussian
latent, a Bernoulli decoder on logits, Adam at 3e-3, batch 64, 300 steps.

Fix: ``.sum(1)`` over the latent units, then the mean over the batch.

Measured on the held-out digits, the proper negative ELBO per image (nats): bug 37.7,
fixed 25.0; seeds + 1000: 36.9 vs 25.3 (the bug's KL per image 20.1 vs 2.3).
"""
import torch
from torch.nn import functional as F

from benchmarks.real_bugs._latent_models import train

TITLE = "KL divergence term in loss function"
LINK = "https://github.com/mkusner/grammarVAE/issues/2"
EXPECTED = ("LOSS_TERMS_REDUCED_DIFFERENTLY",)
STEPS = 300
LATENT = 16


def run(fixed=False, steps=STEPS, **watch):
    def loss_fn(logits, x, z_mean, z_log_var, step):
        recon = F.binary_cross_entropy_with_logits(logits, x, reduction="none").sum(1)
        per_unit = 1 + z_log_var - z_mean ** 2 - torch.exp(z_log_var)
        if fixed:
            kl = -0.5 * torch.sum(per_unit, dim=-1)
        else:
            kl = -0.5 * torch.mean(per_unit, dim=-1)  # BUG: mean over the latent units
        return torch.mean(recon + kl)

    return train(loss_fn, steps, LATENT, **watch)
