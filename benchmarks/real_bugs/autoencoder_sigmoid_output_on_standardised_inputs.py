"""An autoencoder whose inputs are standardised (each pixel's mean subtracted, divided by
its standard deviation) while its decoder ends in a sigmoid: about half of every target
is negative and the network can only output values in (0, 1), so every below-mean pixel
is reconstructed as (nearly) 0 and the bottom half of the data is chopped off.

Reported: "fixed some issues with clipping the data, and unused variables" -
https://github.com/mikesj-public/convolutional_autoencoder/pull/9 ("The normalization to
the mean and standard deviation was unnecessary in this case, and it was chopping off the
bottom half of the data because the network couldn't reconstruct negative values. Another
solution would be to use a tanh nonlinearity on the output"; the author: "Doh! The
original version used tanh for that exact reason."). Here an MLP autoencoder (64-32-16-32-64)
on the 8x8 digits, standardised per pixel. Fix: an output able to reach the targets (a
linear output layer here).

Measured (400 steps, 512 held-out digits): the reconstruction MSE in standardised units
is 0.60 for the bug (most of it on the negative targets it cannot reach), 0.27 for the
fixed twin.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "fixed some issues with clipping the data, and unused variables"
LINK = "https://github.com/mikesj-public/convolutional_autoencoder/pull/9"
EXPECTED = ("TARGETS_OUTSIDE_OUTPUT_RANGE",)
STEPS = 400


def autoencoder(fixed):
    layers = [nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 16), nn.ReLU(),
              nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 64)]
    if not fixed:
        layers.append(nn.Sigmoid())                 # BUG: outputs in (0, 1), targets are not
    return nn.Sequential(*layers)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    x = (x - x.mean(0)) / (x.std(0) + 1e-3)        # standardised per pixel
    train, held_out = x[:-512], x[-512:]
    model = autoencoder(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, _ in batches(train, y[:-512], steps):
            loss = F.mse_loss(model(xb), xb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        mon.reconstruction_error = F.mse_loss(model(held_out), held_out).item()
    return mon
