"""Each network's gradients are cleared only right after its own optimizer steps (the
training loop Lightning ran for GANs then: backward, step, zero_grad, one optimizer at a
time). The generator's turn backpropagates its adversarial loss - fakes labelled real -
through the discriminator too; that gradient is never cleared before the discriminator's
turn, so every discriminator update also pushes it to call the current fakes real,
against its own fake term. The discriminator learns to tell real from fake worse, and the
generator learns from a weaker critic. Nothing raises; both losses look like a GAN's.

Reported: "GAN training with Pytorch Lightning is broken." -
https://github.com/Lightning-AI/pytorch-lightning/issues/591 (labelled bug: "I was trying
to train a DCGAN on my dataset but it wouldn't work ... The culprit is only calling
optimizer.zero_grad() after optimizer.step() since it clears the gradients of Generator or
Discriminator only ... "loss.backward()" is called and it updates gradients for all
parameters ... So when it comes the Discriminator loss.backward(), leftover gradients are
accumulated for Discriminator parameters and it just messes up with everything"; fixed by
clearing each optimizer's gradients before its turn). Here the loop as Lightning ran it,
written out, with the Lightning GAN template's losses and Adam(2e-4, betas (0.5, 0.999)):
the generator's turn first, then the discriminator's on detached fakes, (real + fake) / 2,
on the 8x8 digits (fully connected generator with a sigmoid into [0, 1], fully connected
discriminator on logits). The watched model is the discriminator, whose steps take the
leftover gradient. Fix: clear the discriminator's gradients before its own backward.

Measured on the 397 held-out digits (512 samples after training, clipped to [0, 1]; mean
distance from a held-out digit to its nearest sample - coverage - and from a sample to its
nearest held-out digit - fidelity; lower is better, 512 real training digits score 1.3 /
1.4): coverage 2.91 vs 2.62 for the fixed twin, fidelity 2.74 vs 2.29; seeds + 1000:
coverage 2.93 vs 2.72, fidelity 2.55 vs 2.30.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._beginner_gan import (digits, mlp_discriminator, mlp_generator,
                                                noise, real_batches, record)

TITLE = "GAN training with Pytorch Lightning is broken."
LINK = "https://github.com/Lightning-AI/pytorch-lightning/issues/591"
EXPECTED = ("GRADIENT_CARRIED_FROM_OTHER_TURN", "GRADIENTS_ACCUMULATING")
STEPS = 400


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, held_out = digits()
    G, D = mlp_generator(nn.Sigmoid()), mlp_discriminator()
    opt_g = torch.optim.Adam(G.parameters(), lr=2e-4, betas=(0.5, 0.999))
    opt_d = torch.optim.Adam(D.parameters(), lr=2e-4, betas=(0.5, 0.999))
    with nd.watch(D, opt_d, **watch) as mon:
        for real in real_batches(x, steps):
            valid, fake_label = torch.ones(len(real), 1), torch.zeros(len(real), 1)
            generated = G(noise(len(real)))
            # optimizer 0: the generator
            g_loss = F.binary_cross_entropy_with_logits(D(generated), valid)
            g_loss.backward()                       # also fills D's .grad
            opt_g.step()
            opt_g.zero_grad()                       # clears G's gradients only
            # optimizer 1: the discriminator
            if fixed:
                opt_d.zero_grad()                   # BUG: missing - G's turn left D's .grad
            real_loss = F.binary_cross_entropy_with_logits(D(real), valid)
            fake_loss = F.binary_cross_entropy_with_logits(D(generated.detach()), fake_label)
            d_loss = (real_loss + fake_loss) / 2
            d_loss.backward()
            opt_d.step()
            mon.step(d_loss)
            opt_d.zero_grad()
    return record(mon, G, held_out)
