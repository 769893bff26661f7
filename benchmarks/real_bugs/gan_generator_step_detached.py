"""The generator's adversarial loss is computed on fake.detach(): the discriminator's
verdict never reaches the generator, whose only training signal is the reconstruction
term. The adversarial term is in the loss, its value moves, and it trains nothing.

Reported: "Is fake_spec.detach() in Generator training step intentional?" -
https://github.com/nikhilsinghmus/image2reverb/issues/37 ("`fake_spec.detach()` is passed
to the Discriminator ... would cut the gradient path ... leaving only 'G_loss2' to
effectively update the Generator weights"; the author: "that `.detach()` should not be
there for the generator step and is a bug"). Here a conditional generator completes the
lower half of a digit from its upper half, trained with an adversarial term and an L1 term
like the report's. Fix: give the discriminator `fake` (not detached) in the generator step.

How watch finds it: every parameter of the watched generator still receives a gradient,
from the L1 term, on every step; gradient norms, updates and the loss curve of the bug and
of the fixed twin agree within ten percent (the L1 term dominates both). On the first
recorded steps the monitor walks each addend of the loss's graph down to its parameters:
the adversarial term reaches the discriminator's and none of the generator's, and the
discriminator's optimizer clears that gradient before it steps (an actor-critic loss
summed while the actor is watched looks alike in the graph, but there the critic's
optimizer steps with the gradient). That is LOSS_TERM_DETACHED_FROM_MODEL. (EXPECTED first
said NO_GRADIENT, written before any rule named the case; that code says parameters get
no gradient, and every generator parameter gets the L1 term's, so the cause's own code
replaced it.)
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "Is fake_spec.detach() in Generator training step intentional?"
LINK = "https://github.com/nikhilsinghmus/image2reverb/issues/37"
EXPECTED = ("LOSS_TERM_DETACHED_FROM_MODEL",)
STEPS = 150
L1_WEIGHT = 10.0


def generator():
    return nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 32), nn.Sigmoid())


def discriminator():
    return nn.Sequential(nn.Linear(64, 64), nn.LeakyReLU(0.2), nn.Linear(64, 1))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    G, D = generator(), discriminator()
    opt_g = torch.optim.Adam(G.parameters(), lr=1e-3, betas=(0.5, 0.999))
    opt_d = torch.optim.Adam(D.parameters(), lr=1e-3, betas=(0.5, 0.999))
    ones, zeros = torch.ones(64, 1), torch.zeros(64, 1)
    with nd.watch(G, opt_g, **watch) as mon:
        for real, _ in batches(x, y, steps):
            top, bottom = real[:, :32], real[:, 32:]
            fake = torch.cat([top, G(top)], dim=1)
            opt_d.zero_grad()
            d_loss = F.binary_cross_entropy_with_logits(D(real), ones) + \
                F.binary_cross_entropy_with_logits(D(fake.detach()), zeros)
            d_loss.backward()
            opt_d.step()
            opt_g.zero_grad()
            judged = D(fake if fixed else fake.detach())   # BUG: detached in G's step
            adversarial = F.binary_cross_entropy_with_logits(judged, ones)
            g_loss = adversarial + L1_WEIGHT * F.l1_loss(fake[:, 32:], bottom)
            g_loss.backward()
            opt_g.step()
            mon.step(g_loss)
    return mon
