"""The discriminator's gradients are never cleared: its step has no ``zero_grad``, so every
update applies the sum of all the gradients since training began (its own losses and the
generator's adversarial loss, which also backpropagates through it). Its steps soon follow
a stale running total more than the current batch, it stops telling this batch's fakes from
real digits, and the generator learns from a critic that no longer tracks it. Nothing
raises and both losses stay finite.

Reported: "Zero Grad and Generator error missing in GAN" -
https://github.com/Adversarial-Deep-Learning/code-soup/issues/69 (labelled bug, priority
high: "add self.discriminator.zero_grad()" in the GAN's step; fixed by pull request #74,
"added zero_grad() method for discriminator"). Here a non-saturating GAN on the 8x8 digits
(an MLP generator and discriminator, BCE on logits, the discriminator's step on detached
fakes, then the generator's, whose optimizer zeroes only the generator). Fix: zero the
discriminator's gradients before its backward.

**Measured** (600 steps; 512 samples against the 397 held-out digits, see ``_gan187``): a
sample lies 3.50 from its nearest held-out digit and a held-out digit 3.72 from its nearest
sample for the bug, against 2.24 and 2.45 for the fixed twin; with every seed shifted by
1000, 5.20 and 5.78 against 2.15 and 2.37 (a blur far from any digit).
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._gan187 import (digits, discriminator, generator, noise,
                                          real_batches, record)

TITLE = "Zero Grad and Generator error missing in GAN"
LINK = "https://github.com/Adversarial-Deep-Learning/code-soup/issues/69"
EXPECTED = ("GRADIENTS_ACCUMULATING", "GRADIENT_CARRIED_FROM_OTHER_TURN")
STEPS = 600


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, held_out = digits()
    G, D = generator(), discriminator()
    opt_g = torch.optim.Adam(G.parameters(), lr=1e-3, betas=(0.5, 0.999))
    opt_d = torch.optim.Adam(D.parameters(), lr=1e-3, betas=(0.5, 0.999))
    with nd.watch(G, opt_g, **watch) as mon:
        for real in real_batches(x, steps):
            ones, zeros = torch.ones(len(real), 1), torch.zeros(len(real), 1)
            fake = G(noise(len(real)))
            if fixed:
                opt_d.zero_grad()                 # BUG: missing - D's .grad never cleared
            d_loss = F.binary_cross_entropy_with_logits(D(real), ones) + \
                F.binary_cross_entropy_with_logits(D(fake.detach()), zeros)
            d_loss.backward()
            opt_d.step()
            opt_g.zero_grad()
            g_loss = F.binary_cross_entropy_with_logits(D(fake), ones)
            g_loss.backward()
            opt_g.step()
            mon.step(g_loss)
    return record(mon, G, held_out)
