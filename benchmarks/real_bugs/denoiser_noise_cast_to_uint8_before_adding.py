"""A denoising CNN trained on images whose Gaussian noise was drawn in grey levels and cast
to an unsigned 8-bit integer before being added: the cast saturates every negative draw to 0,
so the "Gaussian" noise is half-Gaussian, only ever brightening a pixel, with a mean of
about 0.4 sigma. The denoiser learns to subtract that one-sided bias and, given images with
real zero-mean Gaussian noise (what it is meant to clean), leaves half the noise in and
darkens the rest; the training loss falls as usual.

Reported: "add noise to input seems to have something wrong" -
https://github.com/anchen1011/toflow/issues/21 (noise made with uint8(random('norm', 0,
25.5, h, w, 3)): "uint8 operation will make the noise to be always positive ... it's actually
not gaussian noise but 'half gaussian noise'"; the authors: "you are right, and we have updated
our paper, code, and dataset reflecting to this bug"). Here a DnCNN-style residual denoiser
(three 3x3 convs, 24 maps, ReLUs; clean = noisy - predicted noise) on the 8x8 digits, noise of
sigma 25.5 grey levels (0.1 in [0, 1]) drawn fresh each batch; the validation loss on
held-out digits with real Gaussian noise goes to the monitor every 25 steps. Adam, batches
of 64, 250 steps.

Fix: add the noise as signed floats (no cast), as the held-out images get it.

Measured (held-out PSNR on 512 digits with Gaussian noise of sigma 0.1, dB; the noisy input
itself: 21.87): 22.60 with the bug, 23.78 fixed; seeds + 1000: 22.63 vs 23.85.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._sr_denoise_beginner import digits, gaussian, psnr

TITLE = "add noise to input seems to have something wrong"
LINK = "https://github.com/anchen1011/toflow/issues/21"
EXPECTED = ("VALIDATION_INPUTS_RESCALED",)
STEPS = 250
SIGMA = 25.5          # in grey levels, as the report draws it
EVERY = 25


class DnCNN(nn.Module):
    """Predicts the noise; the clean image is the input minus it (residual learning)."""

    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(1, 24, 3, padding=1), nn.ReLU(), nn.Conv2d(24, 24, 3, padding=1),
            nn.ReLU(), nn.Conv2d(24, 1, 3, padding=1))

    def forward(self, noisy):
        return noisy - self.body(noisy)


def noisy_copy(clean, seed, fixed):
    noise = gaussian(clean.shape, SIGMA, seed)          # grey levels
    if not fixed:
        noise = noise.round().clamp(0, 255)             # BUG: the uint8 cast of the noise
    return clean + noise / 255


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, held_out = digits()
    noisy_held_out = held_out + gaussian(held_out.shape, SIGMA, 1) / 255
    model = DnCNN()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.MSELoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for step, index in enumerate(index_batches(len(train), steps, batch_size=64, seed=0), 1):
            clean = train[index]
            noisy = noisy_copy(clean, 100 + step, fixed)
            loss = loss_fn(model(noisy), clean)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            val_loss = None
            if step % EVERY == 0:
                model.eval()
                with torch.no_grad():
                    val_loss = loss_fn(model(noisy_held_out), held_out).item()
                model.train()
            mon.step(loss, val_loss=val_loss)
    with torch.no_grad():
        mon.held_out_psnr = psnr(model(noisy_held_out), held_out)
        mon.noisy_psnr = psnr(noisy_held_out, held_out)
    return mon
