"""The data loader's normalisation is left off: the real images stay in [0, 1] (ToTensor)
while the generator ends in tanh and everything downstream - the samples saved with
``denorm(x) = (x + 1) / 2`` - takes images to live in [-1, 1]. The discriminator teaches
the generator the real images' [0, 1], so the generator uses half of its range, and every
sample the script shows or saves comes out squeezed into [0.5, 1]: grey, low-contrast
digits. Training itself runs smoothly and the losses look like a GAN's.

Reported: "Wrong Normalization Setting in Dataloader" -
https://github.com/voletiv/self-attention-GAN-pytorch/issues/6 ("The generated images are
in the range [-1, 1] whereas the real images are in the range [0, 1]. This significantly
hinders training ... should be changed to normalize=True"; another user: "I was having
exactly this issue. Very low contrast images. Now, after normalization, results are very
good"; the author fixed the default). Here, scaled down, a DCGAN-style generator (tanh)
and convolutional discriminator with the repository's hinge loss on the 8x8 digits, Adam
(1e-4 / 4e-4, betas (0, 0.9)) as in its defaults, samples read through the repository's
``denorm``. Fix: normalise the real images to [-1, 1] (``Normalize((0.5,), (0.5,))``).

Measured on the 397 held-out digits (512 samples after training, read through ``denorm`` as
the script saves them, clipped to [0, 1]; mean distance from a held-out digit to its
nearest sample - coverage - and from a sample to its nearest held-out digit - fidelity;
lower is better, 512 real training digits score 1.3 / 1.4): coverage 3.30 vs 1.65 for the
fixed twin, fidelity 3.14 vs 1.69; seeds + 1000: coverage 3.30 vs 1.65, fidelity 3.14 vs
1.72. The generator itself learns the data's [0, 1] well (its raw samples score coverage
1.66 vs the twin's 1.65; seeds + 1000: 1.70 vs 1.65): the harm is the mismatch between the
range it learned and the range the rest of the script reads its output in.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._beginner_gan import (dcgan_discriminator, dcgan_generator, digits,
                                                noise, real_batches, record)

TITLE = "Wrong Normalization Setting in Dataloader"
LINK = "https://github.com/voletiv/self-attention-GAN-pytorch/issues/6"
EXPECTED = ("TARGETS_OUTSIDE_OUTPUT_RANGE", "UNNORMALIZED_INPUTS")
STEPS = 400


def denorm(x):
    """The repository's: [-1, 1] -> [0, 1] for saving samples."""
    return ((x + 1) / 2).clamp(0, 1)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, held_out = digits()                          # ToTensor: pixels in [0, 1]
    if fixed:
        x = (x - 0.5) / 0.5                         # BUG: missing - Normalize((0.5,), (0.5,))
    G, D = dcgan_generator(nn.Tanh()), dcgan_discriminator()
    opt_g = torch.optim.Adam(G.parameters(), lr=1e-4, betas=(0.0, 0.9))
    opt_d = torch.optim.Adam(D.parameters(), lr=4e-4, betas=(0.0, 0.9))
    with nd.watch(G, opt_g, **watch) as mon:
        for real in real_batches(x, steps):
            real = real.reshape(-1, 1, 8, 8)
            fake = G(noise(len(real)))
            opt_d.zero_grad()
            d_loss = F.relu(1 - D(real)).mean() + F.relu(1 + D(fake.detach())).mean()
            d_loss.backward()
            opt_d.step()
            opt_g.zero_grad()
            g_loss = -D(fake).mean()
            g_loss.backward()
            opt_g.step()
            mon.step(g_loss)
    return record(mon, G, held_out, to_pixels=denorm)
