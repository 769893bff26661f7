"""A variational autoencoder whose decoder ends in a ReLU while the data it reconstructs
are standardised (each feature's mean subtracted, divided by its standard deviation):
every below-mean value is a negative target the decoder can never produce, so it answers
0 there and the reconstruction error (and the anomaly score an outlier detector reads
from it) keeps a floor set by the output activation, not by the data. Training runs,
the loss falls and flattens at that floor, nothing errors.

Reported: "VAE with ReLU in last decoder layer" - https://github.com/yzhao062/pyod/issues/651
(PyOD's VAE put a ReLU on the decoder's output; its inputs "are not exclusively constricted
to the domain of ReLU-transformed values [0,inf>, with the result that the model may never
truly low reconstruction error"; the maintainer changed the default output activation to
identity in v2.0.7). Here a small MLP VAE (64-32-8 latent-32-64) on the 8x8 digits
standardised per pixel (PyOD standardises its inputs by default), Adam. Fix: an identity
output activation.

Measured (600 steps, batch 64, 512 held-out digits; reconstruction MSE from the latent
mean, standardised units): seed 0, 0.608 for the bug against 0.366 for the fixed twin;
seeds shifted by 1000, 0.579 against 0.357.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "VAE with ReLU in last decoder layer"
LINK = "https://github.com/yzhao062/pyod/issues/651"
EXPECTED = ("TARGETS_OUTSIDE_OUTPUT_RANGE",)
STEPS = 600
LATENT = 8


class VAE(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(64, 32), nn.ReLU())
        self.mean = nn.Linear(32, LATENT)
        self.log_var = nn.Linear(32, LATENT)
        layers = [nn.Linear(LATENT, 32), nn.ReLU(), nn.Linear(32, 64)]
        if not fixed:
            layers.append(nn.ReLU())        # BUG: outputs >= 0, standardised targets are not
        self.decoder = nn.Sequential(*layers)

    def forward(self, x, sample=True):
        h = self.encoder(x)
        mean, log_var = self.mean(h), self.log_var(h)
        z = mean + torch.randn_like(mean) * (0.5 * log_var).exp() if sample else mean
        return self.decoder(z), mean, log_var


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    x = (x - x.mean(0)) / (x.std(0) + 1e-3)        # standardised per feature
    train, held_out = x[:-512], x[-512:]
    model = VAE(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, _ in batches(train, y[:-512], steps):
            recon, mean, log_var = model(xb)
            rec = F.mse_loss(recon, xb, reduction="none").sum(1).mean()
            kl = -0.5 * (1 + log_var - mean ** 2 - log_var.exp()).sum(1).mean()
            loss = rec + kl
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        mon.reconstruction_error = F.mse_loss(model(held_out, sample=False)[0],
                                              held_out).item()
    return mon
