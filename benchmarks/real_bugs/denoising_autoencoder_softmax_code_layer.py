"""A one-hidden-layer denoising autoencoder whose hidden (code) layer uses a softmax as its
activation. The code units then compete for one unit of mass (the code of every image is a
point on a simplex, its units no longer free to be on together), so the decoder can only
blend a few templates per image. Training runs, the cross-entropy falls, and nothing errors,
but the reconstructions stay blurry.

Reported: "Cannot get cross-entropy to work" -
https://github.com/rajarsheem/libsdae-autoencoder-tensorflow/issues/3 (a
``StackedAutoEncoder(dims=[100], activations=['softmax'], noise='gaussian',
loss='cross-entropy', ...)`` on MNIST "does not converge"; the maintainer's first advice:
"A softmax activation almost never works for a neural network except for the output layer,
see if 'relu', 'tanh' or 'sigmoid' resolves the issue"). Here the 8x8 digits, a 64-32-64
denoising autoencoder with a sigmoid output, Gaussian noise of std 0.3 on the input only,
binary cross-entropy against the clean digit, Adam at 5e-3, batch 64. Fix: a sigmoid on the
code layer, as advised.

Measured (600 steps; MSE between the output for a noisy held-out digit and the clean digit,
over 512 held-out digits): seed 0, 0.065 for the bug against 0.028 for the fixed twin; seeds
shifted by 1000, 0.074 against 0.028.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._beginner_autoencoder import digit_batches, digits

TITLE = "Cannot get cross-entropy to work"
LINK = "https://github.com/rajarsheem/libsdae-autoencoder-tensorflow/issues/3"
EXPECTED = ("SATURATED_ACTIVATIONS",)
STEPS = 600
NOISE = 0.3


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, held_out = digits()
    noisy_held_out = held_out + NOISE * torch.randn_like(held_out)
    code = nn.Sigmoid() if fixed else nn.Softmax(dim=1)       # BUG: softmax on the code
    model = nn.Sequential(nn.Linear(64, 32), code, nn.Linear(32, 64), nn.Sigmoid())
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for x in digit_batches(train, steps):
            loss = F.binary_cross_entropy(model(x + NOISE * torch.randn_like(x)), x)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        mon.denoised_mse = F.mse_loss(model(noisy_held_out), held_out).item()
    return mon
