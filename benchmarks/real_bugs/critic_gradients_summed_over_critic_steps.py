"""A WGAN-GP that takes five critic steps per generator step zeroes the critic's gradients
once, before the five: each critic step then applies the sum of this step's gradient and
the earlier ones of the same round, computed on other batches and at older weights. The
later critic steps of each round mostly repeat the first, and the critic the generator
learns from is a worse estimate of the Wasserstein distance. The run trains, the losses
look ordinary.

Reported: "Any reason you don't zero optimizer between Discriminator training steps?" -
https://github.com/ajbrock/BigGAN-PyTorch/issues/25 ("WGAN-GP and most other gans I've seen
will call D_optim.zero_grad() between Discriminator iterations"; the author: "Good
catch--this was a typo! Fixed with the most recent commit", harmless only for the default
of one critic step). Here a WGAN-GP on the 8x8 digits (MLP generator and critic, penalty
10, five critic steps per generator step, Adam betas (0.5, 0.9)). Fix: zero the critic's
gradients inside the critic loop, before each backward.

**Measured** (600 generator steps; 512 samples against the 397 held-out digits, see
``_gan187``): a sample lies 2.08 from its nearest held-out digit and a held-out digit 1.97
from its nearest sample for the bug, against 1.72 and 1.61 for the fixed twin; with every
seed shifted by 1000, 2.01 and 1.91 against 1.67 and 1.59. (At 250 generator steps the two
still agree within 0.05: the harm builds up.)
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._gan187 import (digits, discriminator, generator, noise,
                                          real_batches, record)

TITLE = "Any reason you don't zero optimizer between Discriminator training steps?"
LINK = "https://github.com/ajbrock/BigGAN-PyTorch/issues/25"
EXPECTED = ("GRADIENTS_ACCUMULATING",)
STEPS = 600
CRITIC_STEPS = 5
PENALTY = 10.0


def gradient_penalty(D, real, fake):
    mix = torch.rand(len(real), 1)
    between = (mix * real + (1 - mix) * fake).requires_grad_(True)
    grad, = torch.autograd.grad(D(between).sum(), between, create_graph=True)
    return ((grad.norm(dim=1) - 1) ** 2).mean()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, held_out = digits()
    G, D = generator(), discriminator()
    opt_g = torch.optim.Adam(G.parameters(), lr=1e-3, betas=(0.5, 0.9))
    opt_d = torch.optim.Adam(D.parameters(), lr=1e-3, betas=(0.5, 0.9))
    data = real_batches(x, steps * CRITIC_STEPS)
    with nd.watch(G, opt_g, **watch) as mon:
        for _ in range(steps):
            opt_d.zero_grad()                     # BUG: once per round of critic steps
            for _ in range(CRITIC_STEPS):
                real = next(data)
                if fixed:
                    opt_d.zero_grad()
                fake = G(noise(len(real))).detach()
                d_loss = D(fake).mean() - D(real).mean() + \
                    PENALTY * gradient_penalty(D, real, fake)
                d_loss.backward()
                opt_d.step()
            opt_g.zero_grad()
            g_loss = -D(G(noise(64))).mean()
            g_loss.backward()
            opt_g.step()
            mon.step(g_loss)
    return record(mon, G, held_out)
