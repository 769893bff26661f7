"""A sequence VAE scores every event (here: every row of a digit) with a reconstruction term
and a KL term, masks the padded events, and averages over the real ones. The per-event KL is
written ``-0.5 * torch.sum(1 + log_var - mean.pow(2) - log_var.exp())`` with no ``dim``: the
sum runs over the latent units AND every event of every sequence of the batch, giving one
scalar, and multiplying it by the ``(batch, events)`` mask broadcasts that scalar back to
every event. Each event now carries the whole batch's KL: the KL term weighs about
batch x events times too much, the encoder gives up (every posterior collapses onto the
prior) and the decoder reconstructs the average row. No error: a scalar times a mask has
the mask's shape.

Reported: "Coding error in GNTPP/models/prob_decoders/vae_modules /vae.py" -
https://github.com/EDAPINENUT/GNTPP/issues/4 (a neural temporal point process library;
"kl_loss = (- 0.5 * torch.sum(1 + log_var - mean.pow(2) - log_var.exp())) * seq_onehots
... no 'dim' parameter is passed to torch.sum(), which means this operation is summing over
the whole tensor ... yielding a scalar! No exception is raised, because multiplying this
scalar to the onehot mask is still valid"; the fix ``dim=-1``; the authors: "The bug is
fixed, and the new experimental results will be updated"). Here each 8x8 digit is a
sequence of 8 row events, blank rows masked out; an encoder and a decoder shared across
rows, a 2-unit latent per row, a Gaussian decoder (sigma 0.1), Adam at 3e-3, batch 64.

Measured (300 steps; on all 1797 digits, real rows only, decoding the posterior means):
reconstruction MSE per pixel bug 0.079 - exactly the average row's 0.079 -, fixed 0.024;
the latent's KL per row bug 0.00003 nats (collapsed onto the prior), fixed 3.4.

Fix: ``torch.sum(..., dim=-1)``, one KL per event, then the mask.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "Coding error in GNTPP/models/prob_decoders/vae_modules /vae.py"
LINK = "https://github.com/EDAPINENUT/GNTPP/issues/4"
EXPECTED = ("LOSS_TERMS_REDUCED_DIFFERENTLY",)
STEPS = 300
LATENT = 2
SIGMA = 0.1          # the decoder's Gaussian noise: -log p(row | z) = |row - recon|^2 / 2 sigma^2


class RowVAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 2 * LATENT))
        self.decoder = nn.Sequential(nn.Linear(LATENT, 32), nn.ReLU(), nn.Linear(32, 8))

    def forward(self, rows):                       # (batch, events, 8)
        mean, log_var = self.encoder(rows).chunk(2, dim=-1)
        z = mean + torch.randn_like(mean) * torch.exp(0.5 * log_var)
        return self.decoder(z), mean, log_var


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    rows = x.view(-1, 8, 8)                        # 8 row "events" per digit
    model = RowVAE()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, _ in batches(rows, y, steps):
            seq_onehots = (xb.sum(-1) > 0).float()   # the real events; blank rows padded
            optimizer.zero_grad()
            recon, mean, log_var = model(xb)
            recon_loss = (recon - xb).pow(2).sum(-1) / (2 * SIGMA ** 2) * seq_onehots
            kl_units = 1 + log_var - mean.pow(2) - log_var.exp()
            if fixed:
                kl_loss = (-0.5 * torch.sum(kl_units, dim=-1)) * seq_onehots
            else:
                kl_loss = (-0.5 * torch.sum(kl_units)) * seq_onehots   # BUG: no dim
            loss = (recon_loss + kl_loss).sum() / seq_onehots.sum()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
