"""A denoising autoencoder fitted with the noisy images as both its input and its target.
Mapping a noisy image to itself is just the identity, so the network learns to copy its
input (noise included) as well as its bottleneck allows, instead of learning to remove
the noise; the loss falls steadily (it is an ordinary reconstruction loss) and nothing
errors, but the "denoised" outputs keep the noise.

Reported: "Denoising Autoencoders target label" -
https://github.com/aapatel09/handson-unsupervised-learning/issues/6 (the book's denoising
autoencoder called ``fit(x=X_train_AE_noisy, y=X_train_AE_noisy, ...)``; the reporter:
"Doing this the autoencoders learns to reconstruct the noisy input", the fix being the
clean inputs as the target, ``y=X_train_AE``, and scoring on held-out noisy inputs against
their clean versions). Here a small convolutional autoencoder (benchmarks/real_bugs/_res177.py)
on the 8x8 digits in [0, 1], Gaussian noise of standard deviation 0.5 added once to the
training images (as the book does), Adam, MSE. Fix: the clean images as the target.

Measured (500 steps, batch 64; held-out MSE between the output for a noisy held-out digit
and the clean digit, the noisy input itself scoring 0.25): seed 0, 0.251 for the bug
against 0.039 for the fixed twin; seeds shifted by 1000, 0.249 against 0.043 (the bug
run learned the identity: its outputs are as noisy as its inputs).
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._res177 import ConvAutoencoder, images

TITLE = "Denoising Autoencoders target label"
LINK = "https://github.com/aapatel09/handson-unsupervised-learning/issues/6"
EXPECTED = ("DENOISING_TARGET_IS_NOISY_INPUT",)
STEPS = 500
NOISE = 0.5


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    clean, held_out = images()
    noisy = clean + NOISE * torch.randn_like(clean)          # drawn once, as the book does
    model = ConvAutoencoder()
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(clean), steps, 64):
            target = clean[index] if fixed else noisy[index]  # BUG: the noisy copy as target
            loss = F.mse_loss(model(noisy[index]), target)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        noisy_held_out = held_out + NOISE * torch.randn_like(held_out)
        mon.denoising_error = F.mse_loss(model(noisy_held_out), held_out).item()
    return mon
