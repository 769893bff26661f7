"""A GAN trained in its "wgangp" mode computes the critic's Wasserstein loss (mean score of
the fakes minus mean score of the reals) and never calls the gradient-penalty function
that the mode is named after: the critic has no Lipschitz constraint (no penalty, no weight
clipping), its scores drift apart without bound, and the generator follows the slopes of an
unconstrained critic. Nothing fails; the losses just keep growing in size.

Reported: "No gradient penalty in WGAN-GP" -
https://github.com/junyanz/pytorch-CycleGAN-and-pix2pix/issues/1201 ("When computing
WGAN-GP loss, the cal_gradient_penalty function is not called, and gradient penalty is not
applied": the repository's GANLoss turns 'wgangp' into -mean / +mean of the critic's
score, and the models' backward_D never adds ``cal_gradient_penalty``). Here, as in the
repository's models, one critic step then one generator step per batch, on the 8x8 digits
(MLP generator and critic, Adam betas (0.5, 0.999)). Fix: add ``cal_gradient_penalty``
(penalty 10) to the critic's loss.

**Measured** (1200 steps; 512 samples against the 397 held-out digits, see ``_gan187``): a
sample lies 2.76 from its nearest held-out digit and a held-out digit 3.54 from its nearest
sample for the bug, against 1.78 and 2.12 for the fixed twin; with every seed shifted by
1000, 2.18 and 3.26 against 1.68 and 2.31.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._gan187 import (digits, discriminator, generator, noise,
                                          real_batches, record)

TITLE = "No gradient penalty in WGAN-GP"
LINK = "https://github.com/junyanz/pytorch-CycleGAN-and-pix2pix/issues/1201"
EXPECTED = ("CRITIC_WITHOUT_LIPSCHITZ_CONSTRAINT",)
STEPS = 1200
PENALTY = 10.0


def gan_loss(score, target_is_real):
    """The 'wgangp' mode of the report's GANLoss."""
    return -score.mean() if target_is_real else score.mean()


def cal_gradient_penalty(D, real, fake):
    mix = torch.rand(len(real), 1)
    between = (mix * real + (1 - mix) * fake).requires_grad_(True)
    grad, = torch.autograd.grad(D(between).sum(), between, create_graph=True)
    return PENALTY * ((grad.norm(dim=1) - 1) ** 2).mean()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, held_out = digits()
    G, D = generator(), discriminator()
    opt_g = torch.optim.Adam(G.parameters(), lr=2e-4, betas=(0.5, 0.999))
    opt_d = torch.optim.Adam(D.parameters(), lr=2e-4, betas=(0.5, 0.999))
    with nd.watch(G, opt_g, **watch) as mon:
        for real in real_batches(x, steps):
            fake = G(noise(len(real)))
            opt_d.zero_grad()                     # backward_D
            d_loss = gan_loss(D(fake.detach()), False) + gan_loss(D(real), True)
            if fixed:                             # BUG: the penalty is never added
                d_loss = d_loss + cal_gradient_penalty(D, real, fake.detach())
            d_loss.backward()
            opt_d.step()
            opt_g.zero_grad()                     # backward_G
            g_loss = gan_loss(D(fake), True)
            g_loss.backward()
            opt_g.step()
            mon.step(g_loss)
    return record(mon, G, held_out)
