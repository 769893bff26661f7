"""A WGAN-GP whose penalty takes the critic's input gradient without ``create_graph``: the
gradient comes back as a constant, so the penalty's value is computed, added to the
critic's loss and logged, and contributes nothing to the critic's update. The critic trains
on the Wasserstein term alone, with no Lipschitz constraint at all, and its scores and
slopes grow without bound; the generator follows a critic whose gradients say little about
where the data is.

Reported: "WGAN-GP gradient penalty not backpropagating into discriminator weights
(createGraph=false in nested tape)" - https://github.com/ooples/AiDotNet/issues/1844 (every
GAN's ComputeGradientPenalty "computes the penalty VALUE but does not backpropagate the
penalty gradient into the discriminator's weights. The critic trains against the
Wasserstein term alone": the inner tape's gradient was taken with createGraph false,
the issue's root cause; closed). Here the same in PyTorch (``torch.autograd.grad``
without ``create_graph=True``), a WGAN-GP on the 8x8 digits: MLP generator and critic,
penalty 10, five critic steps per generator step. Fix: ``create_graph=True``.

**Measured** (250 generator steps; 512 samples against the 397 held-out digits, see
``_gan187``): a held-out digit lies 2.31 from its nearest sample for the bug against 1.68
for the fixed twin (the samples cover far fewer digits), a sample 1.70 from its nearest
held-out digit against 1.75; with every seed shifted by 1000, 2.33 against 1.66 and 1.82
against 1.78.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._gan187 import (digits, discriminator, generator, noise,
                                          real_batches, record)

TITLE = ("WGAN-GP gradient penalty not backpropagating into discriminator weights "
         "(createGraph=false in nested tape)")
LINK = "https://github.com/ooples/AiDotNet/issues/1844"
EXPECTED = ("LOSS_TERM_WITHOUT_GRADIENT", "GRADIENT_PENALTY_WITHOUT_GRAPH")
STEPS = 250
CRITIC_STEPS = 5
PENALTY = 10.0


def gradient_penalty(D, real, fake, fixed):
    mix = torch.rand(len(real), 1)
    between = (mix * real + (1 - mix) * fake).requires_grad_(True)
    # BUG: without create_graph the gradient is a constant and so is the penalty
    grad, = torch.autograd.grad(D(between).sum(), between, create_graph=fixed)
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
            for _ in range(CRITIC_STEPS):
                real = next(data)
                fake = G(noise(len(real))).detach()
                d_loss = D(fake).mean() - D(real).mean() + \
                    PENALTY * gradient_penalty(D, real, fake, fixed)
                opt_d.zero_grad()
                d_loss.backward()
                opt_d.step()
            opt_g.zero_grad()
            g_loss = -D(G(noise(64))).mean()
            g_loss.backward()
            opt_g.step()
            mon.step(g_loss)
    return record(mon, G, held_out)
