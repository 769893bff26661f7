"""A denoising autoencoder whose reconstruction loss compares its output with the NOISY
input it was given, not with the clean image: ``cost = ((y - x_noisy) ** 2).sum()``. The
network is asked to reproduce the noise exactly, the identity is its best answer, and it
learns no denoising at all: on noisy images its output is as far from the clean ones as the
noisy input was.

Reported: "Cost in 09_convolutional_autoencoder" -
https://github.com/pkmital/tensorflow_tutorials/issues/21 ("shouldn't the cost be against
the non-noisy input ( like in 08_denoising_autoencoder ) on line 114?" about
``cost = tf.reduce_sum(tf.square(y - x))`` with ``x`` the noise-corrupted input; the author:
"sorry, yes, fixed."). Here a convolutional autoencoder on the 8x8 digits with Gaussian
noise (std 0.3) added to every input. Fix: score the output against the clean images.

Measured (300 steps, 512 held-out digits): the reconstruction error of noisy held-out
digits against their clean images is 0.091 per pixel for the bug (the noise left in:
the noisy inputs themselves are 0.091 away), 0.024 for the fixed twin.

Why watch misses it: a plain autoencoder's target IS its input, and nothing in the graph or
the batches says the input was meant to be a corrupted copy of the target (the noise is
added before the model sees it, in the user's loop).
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "Cost in 09_convolutional_autoencoder"
LINK = "https://github.com/pkmital/tensorflow_tutorials/issues/21"
EXPECTED = ("DENOISING_TARGET_IS_NOISY_INPUT",)
STEPS = 300
NOISE = 0.3


def autoencoder():
    return nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 8, 3, stride=2, padding=1),
        nn.ReLU(), nn.ConvTranspose2d(8, 16, 4, stride=2, padding=1), nn.ReLU(),
        nn.Conv2d(16, 1, 3, padding=1))


def denoising_error(model, x, seed=1):
    generator = torch.Generator().manual_seed(seed)
    noisy = x + NOISE * torch.randn(x.shape, generator=generator)
    with torch.no_grad():
        return ((model(noisy) - x) ** 2).mean().item(), ((noisy - x) ** 2).mean().item()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification(images=True)
    train, held_out = x[:-512], x[-512:]
    model = autoencoder()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    generator = torch.Generator().manual_seed(0)
    with nd.watch(model, optimizer, **watch) as mon:
        for clean, _ in batches(train, y[:-512], steps):
            noisy = clean + NOISE * torch.randn(clean.shape, generator=generator)
            output = model(noisy)
            target = clean if fixed else noisy       # BUG: scored against the noisy input
            loss = ((output - target) ** 2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.denoising_error, mon.noise_error = denoising_error(model, held_out)
    return mon
