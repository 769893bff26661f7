"""A VAE's KL term written ``-0.5 * torch.sum(1 + log_var - mu ** 2 - log_var.exp())`` with
no ``dim``, then ``torch.mean(loss, dim=0)`` as if it were one KL per image: the sum already
ran over the latent units AND every image of the batch, the mean of that scalar is the
scalar, so the KL added to the per-image reconstruction is the whole batch's KL - 64 times
(the batch size) too heavy. The encoder gives up on its input (every posterior collapses
onto the prior) and the decoder draws the average digit for every input. No error, no
NaN: the loss falls smoothly.

Reported: "Minor bug in kl2?" - https://github.com/GlassyWing/nvae/issues/3 (an NVAE
re-implementation; the reporter quotes ``loss = -0.5 * torch.sum(1 + delta_log_var -
delta_mu ** 2 / var - delta_var); return torch.mean(loss, dim=0)`` and proposes summing
per sample, ``.flatten(start_dim=1).sum(dim=-1).mean(dim=0)``; the author: "Thanks for
report, I did lose `dim` in torch.sum"). Here a small MLP VAE on the 8x8 digits (1400 for
training, 397 held out), an 8-unit Gaussian latent, a Bernoulli decoder on logits, the
reconstruction summed over pixels and averaged over the batch, Adam at 3e-3, batch 64,
300 steps.

Fix: ``torch.sum(..., dim=1)``, one KL per image, then the mean over the batch.

Measured on the held-out digits (reconstruction MSE per pixel decoding the posterior
means; KL per image): bug MSE 0.075 (the average digit's), KL 0.00 nats; fixed MSE 0.036,
KL 2.5; seeds + 1000: 0.074 vs 0.037. The proper negative ELBO: 27.0 vs 24.9 nats per
image; seeds + 1000: 27.0 vs 25.1.
"""
import torch
from torch.nn import functional as F

from benchmarks.real_bugs._latent_models import train

TITLE = "Minor bug in kl2?"
LINK = "https://github.com/GlassyWing/nvae/issues/3"
EXPECTED = ("LOSS_TERMS_REDUCED_DIFFERENTLY",)
STEPS = 300
LATENT = 8


def run(fixed=False, steps=STEPS, **watch):
    def loss_fn(logits, x, mu, log_var, step):
        recon = F.binary_cross_entropy_with_logits(logits, x, reduction="none").sum(1).mean()
        if fixed:
            kl = -0.5 * torch.sum(1 + log_var - mu ** 2 - log_var.exp(), dim=1)
        else:
            # BUG: no dim - the sum runs over the whole batch, the mean below is a no-op
            kl = -0.5 * torch.sum(1 + log_var - mu ** 2 - log_var.exp())
        return recon + torch.mean(kl, dim=0)

    return train(loss_fn, steps, LATENT, **watch)
