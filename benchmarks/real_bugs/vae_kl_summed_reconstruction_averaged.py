"""A VAE whose reconstruction error is averaged over the batch and every pixel while its KL
term is summed over the batch and the latent units: the KL term outweighs the
reconstruction by batch x pixels, the encoder gives up on its input (the posterior
collapses onto the prior) and the decoder draws one average image for every input.

Reported: "fix loss calculation for VAE" - https://github.com/zdebruine/MMVAE/pull/19
("Current implement of KL are scale over sum `-0.5 * torch.sum(1 + logvar - mu.pow(2) -
logvar.exp())`. But MSE are scale over mean by default `F.mse_loss(predicted, target)`.
This lead to imbalance between KL loss and MSE loss. We can clearly see that KL Loss
easily drop to 0 at few epoch"). Here a small MLP VAE on the 8x8 digits with an 8-unit
latent. After 600 steps the bug's encoder means barely vary between inputs (std 0.001)
and its reconstructions are the average digit (MSE 0.074, the mean image's is 0.073); the
fixed twin's means vary (std 0.22) and reconstruct better (MSE 0.062). Fix: both terms
summed over their units (pixels, latent units) and averaged over the batch.

How watch finds it: every parameter trains, the loss falls, gradients are healthy; what is
wrong is the balance of two terms of one loss. On the first recorded steps the monitor
walks the loss's top-level sum and reads how each addend was reduced (a ``SumBackward0``
over a tensor leading with the model output's batch size, an ``MseLossBackward0`` with
reduction 'mean'): a term summed over the batch next to one averaged over it is
LOSS_TERMS_REDUCED_DIFFERENTLY. The fixed twin divides both sums by the batch size.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "fix loss calculation for VAE"
LINK = "https://github.com/zdebruine/MMVAE/pull/19"
EXPECTED = ("LOSS_TERMS_REDUCED_DIFFERENTLY",)
STEPS = 600
LR = 3e-3
LATENT = 8


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


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = VAE()
    optimizer = torch.optim.Adam(model.parameters(), lr=LR)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, _ in batches(x, y, steps):
            optimizer.zero_grad()
            recon, mu, logvar = model(xb)
            kl_units = -0.5 * (1 + logvar - mu.pow(2) - logvar.exp())
            if fixed:
                loss = F.mse_loss(recon, xb, reduction="sum") / len(xb) + \
                    kl_units.sum() / len(xb)
            else:
                # BUG: reconstruction averaged over batch and pixels, KL summed over batch
                # and latent units: the KL term weighs batch x pixels times too much
                loss = F.mse_loss(recon, xb) + kl_units.sum()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
