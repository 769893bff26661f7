"""A categorical (Gumbel-softmax) VAE whose loss SUBTRACTS the KL term: ``bce - KL`` where the
negative ELBO is ``bce + KL(q(z|x) || uniform)``. The optimiser then maximises the KL: every
latent's posterior is driven to a single category (the KL of a categorical to the uniform
prior is bounded by log K, so nothing blows up), the codes stop matching the prior, and the
true negative ELBO is far worse. The loss falls, the reconstructions look fine, nothing
errors.

Reported: "Minimizing KL (not maximizing)" - https://github.com/EderSantana/gumbel/issues/3
(the reporter pointed out that the Gumbel-softmax VAE computes ``elbo = data_dim * bce(x,
x_hat) - KL`` and it should be ``+ KL``; another user confirmed). Here a 64-128-(8 x 10)
encoder and mirrored decoder on the 8x8 digits (1,300 training images, the rest held out),
8 categorical latents of 10 classes, soft Gumbel-softmax samples with the temperature
annealed from 1 to 0.5, Bernoulli BCE summed over pixels, Adam 1e-3, batches of 64, 2,000
steps. Fix: ``bce + KL``.

Measured (497 held-out digits, the negative ELBO in nats at temperature 0.5): seed 0, 45.5
for the bug against 24.4 for the fixed twin (KL 18.4 - its maximum, 8 log 10 - against
2.2; reconstruction 27.1 against 22.2); seeds shifted by 1000, 45.5 against 24.2 (KL 18.4
against 2.3; reconstruction 27.1 against 21.9).
"""
import math

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import classification, index_batches

TITLE = "Minimizing KL (not maximizing)"
LINK = "https://github.com/EderSantana/gumbel/issues/3"
EXPECTED = ("KL_TERM_SUBTRACTED",)
STEPS = 2000
LATENTS, CATEGORIES = 8, 10
TAU_START, TAU_END = 1.0, 0.5
TRAIN = 1300


class GumbelVAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(64, 128), nn.ReLU(),
                                     nn.Linear(128, LATENTS * CATEGORIES))
        self.decoder = nn.Sequential(nn.Linear(LATENTS * CATEGORIES, 128), nn.ReLU(),
                                     nn.Linear(128, 64))

    def forward(self, x, tau):
        logits = self.encoder(x).view(-1, LATENTS, CATEGORIES)
        z = F.gumbel_softmax(logits, tau=tau)
        return self.decoder(z.flatten(1)), logits


def terms(model, x, tau):
    """(reconstruction BCE summed over pixels, KL(q || uniform) summed over latents), each
    averaged over the batch."""
    recon, logits = model(x, tau)
    bce = F.binary_cross_entropy_with_logits(recon, x, reduction="sum") / len(x)
    q = F.softmax(logits, -1)
    kl = (q * (F.log_softmax(logits, -1) + math.log(CATEGORIES))).sum() / len(x)
    return bce, kl


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, _ = classification()
    order = torch.from_numpy(np.random.default_rng(0).permutation(len(x)))
    x_train, x_held = x[order[:TRAIN]], x[order[TRAIN:]]
    model = GumbelVAE()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for step, index in enumerate(index_batches(TRAIN, steps, 64, seed=0)):
            tau = TAU_START * (TAU_END / TAU_START) ** (step / steps)
            bce, kl = terms(model, x_train[index], tau)
            loss = bce + kl if fixed else bce - kl          # BUG: the KL subtracted
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        bce, kl = terms(model, x_held, TAU_END)
        mon.held_out_nelbo = round(float(bce + kl), 3)
        mon.held_out_kl = round(float(kl), 3)
        mon.held_out_reconstruction = round(float(bce), 3)
    return mon
