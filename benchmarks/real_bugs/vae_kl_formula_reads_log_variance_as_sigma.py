"""A VAE's KL term written for a standard deviation but fed the encoder's log variance:
``0.5 * (mu ** 2 + sigma ** 2 - log(sigma ** 2) - 1)`` with sigma = logvar, while the
sampler draws z = mu + eps * exp(0.5 * logvar). That penalty is smallest at logvar = +-1
and infinite at logvar = 0 (the prior's own spread), so every posterior's log variance is
pinned near +1 or -1 whatever the data say: units starting above 0 stay noisier than the
prior (std 1.65), the others can never sharpen beyond std 0.6. The loss falls smoothly;
the model's bound is worse.

Reported: "fix: Loss corrections - KL Divergence, Poisson" -
https://github.com/deepchem/deepchem/pull/4888 ("VAE_KLDivergence - incorrect KL
divergence formula ... Wrong: 0.5 * mean(mu^2 + sigma^2 - log(sigma^2) - 1) where sigma^2
= logvar^2; Correct: 0.5 * mean(mu^2 + exp(logvar) - logvar - 1). The original code
treated logvar as sigma rather than log(sigma^2), producing wrong gradients for the KL
regularization term throughout VAE training"). Here a small MLP VAE on the 8x8 digits
(1400 for training, 397 held out), an 8-unit Gaussian latent, a Bernoulli decoder on
logits, Adam at 3e-3, batch 64, 300 steps.

Fix: the KL of N(mu, exp(logvar)) from N(0, 1): 0.5 * (mu ** 2 + exp(logvar) - logvar - 1).

Measured on the held-out digits, the proper negative ELBO per image (nats): bug 26.6,
fixed 24.9; seeds + 1000: 26.5 vs 25.1 (after training the bug's log variances sit at
-1.2 or +1.0 in every unit, the fixed twin's follow the data).

EXPECTED: no code names a KL formula that misreads its log variance; the closest is
VAE_NOISE_SCALED_BY_VARIANCE, the same disagreement between what the sampler and what the
KL take logvar to be, seen from the sampler's side.
"""
import torch
from torch.nn import functional as F

from benchmarks.real_bugs._latent_models import train

TITLE = "fix: Loss corrections - KL Divergence, Poisson"
LINK = "https://github.com/deepchem/deepchem/pull/4888"
EXPECTED = ("VAE_NOISE_SCALED_BY_VARIANCE",)
STEPS = 300
LATENT = 8


def run(fixed=False, steps=STEPS, **watch):
    def loss_fn(logits, x, mean, logvar, step):
        recon = F.binary_cross_entropy_with_logits(logits, x, reduction="none").sum(1)
        if fixed:
            kl = 0.5 * (mean ** 2 + torch.exp(logvar) - logvar - 1)
        else:
            # BUG: the KL for a standard deviation sigma, given the log variance as sigma
            kl = 0.5 * (mean ** 2 + logvar ** 2 - torch.log(1e-20 + logvar ** 2) - 1)
        return (recon + kl.sum(1)).mean()

    return train(loss_fn, steps, LATENT, **watch)
