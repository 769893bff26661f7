"""The adversarial loss helper gives real samples the target 0 and fakes the target 1, and
the generator's term calls it with ``is_real=False`` to mean "fool the discriminator": the
discriminator learns real = 0 / fake = 1, and the generator is trained towards target 1,
the discriminator's label for FAKE. Generator and discriminator cooperate in making the
samples recognisably unlike the data; every loss falls as it should.

Reported: "Swaped labels for discriminator loss in SRGAN?" -
https://github.com/https-deeplearning-ai/GANs-Public/issues/1 (the helper ``adv_loss(x,
is_real)`` takes ``zeros_like`` for real, ``ones_like`` otherwise; the discriminator's loss
is ``adv_loss(real, True) + adv_loss(fake, False)``, the generator's ``adv_loss(fake,
False)``; "Shouldn't it be the other way round ... you want ones for the real_preds and
zeros for the fake_preds?"; closed). Here the helper as reported, in a GAN on the 8x8 digits
whose generator learns from the adversarial term alone (the report's SRGAN adds pixel and
VGG terms that hide it). Fix, as the issue proposes: the discriminator's loss calls the
helper the other way round (``adv_loss(real, False) + adv_loss(fake, True)``: real 1, fake
0), and the generator's target 1 is then the discriminator's label for real.

**Measured** (600 steps; 512 samples against the 397 held-out digits, see ``_gan187``): a
sample lies 5.91 from its nearest held-out digit and a held-out digit 5.79 from its nearest
sample for the bug, against 2.18 and 2.80 for the fixed twin; with every seed shifted by
1000, 5.99 and 6.06 against 2.62 and 3.00 (the samples are pushed away from every digit).
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._gan187 import (digits, discriminator, generator, noise,
                                          real_batches, record)

TITLE = "Swaped labels for discriminator loss in SRGAN?"
LINK = "https://github.com/https-deeplearning-ai/GANs-Public/issues/1"
EXPECTED = ("GAN_LABELS_INCONSISTENT",)
STEPS = 600


def adv_loss(score, is_real):
    """As reported: target 0 when ``is_real``, 1 otherwise."""
    target = torch.zeros_like(score) if is_real else torch.ones_like(score)
    return F.binary_cross_entropy_with_logits(score, target)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, held_out = digits()
    G, D = generator(), discriminator()
    opt_g = torch.optim.Adam(G.parameters(), lr=1e-3, betas=(0.5, 0.999))
    opt_d = torch.optim.Adam(D.parameters(), lr=1e-3, betas=(0.5, 0.999))
    with nd.watch(G, opt_g, **watch) as mon:
        for real in real_batches(x, steps):
            fake = G(noise(len(real)))
            g_loss = adv_loss(D(fake), False)     # target 1: "fool the discriminator"
            if fixed:                             # the fix: real 1, fake 0
                d_loss = 0.5 * (adv_loss(D(real), False) + adv_loss(D(fake.detach()), True))
            else:                                 # BUG: real 0, fake 1, the generator's 1
                d_loss = 0.5 * (adv_loss(D(real), True) + adv_loss(D(fake.detach()), False))
            opt_g.zero_grad()
            g_loss.backward()
            opt_g.step()
            opt_d.zero_grad()
            d_loss.backward()
            opt_d.step()
            mon.step(g_loss)
    return record(mon, G, held_out)
