"""The discriminator is frozen for the generator's step and never made trainable again: a
``make_trainable(D, False)`` before the generator's update has no ``make_trainable(D,
True)`` before the discriminator's. After its first update the discriminator's weights
have requires_grad=False, its loss backpropagates only into the generator, its optimizer
steps over gradients that never come, and the generator spends the whole run fooling a
critic frozen near its random initialisation. Both losses are printed and finite; the
discriminator's loss just stops moving.

Reported: "Doubts in compiling discriminator for the combined model" -
https://github.com/eriklindernoren/Keras-GAN/issues/91 ("if I set the discriminator to
compile after setting trainable to false, the warning goes away but the generator
generates only noise"; the answer points to the Keras thread on freezing: the
discriminator must stay trainable for its own updates and be frozen only inside the
combined model). Here the same freeze in a PyTorch loop in the style of the first
tutorials (yunjey/pytorch-tutorial's GAN: the discriminator's step on ``D(G(z))`` without
detach, gradients reset before each backward, fresh fakes for the generator's step), with
the Keras tutorials' ``make_trainable`` helper, on the 8x8 digits (fully connected
generator with a sigmoid into [0, 1], fully connected discriminator on logits). The watched
model is the discriminator, the frozen one. Fix: ``make_trainable(D, True)`` before the
discriminator's update.

Measured on the 397 held-out digits (512 samples after training, clipped to [0, 1]; mean
distance from a held-out digit to its nearest sample - coverage - and from a sample to its
nearest held-out digit - fidelity; lower is better, 512 real training digits score 1.3 /
1.4): coverage 4.82 vs 2.80 for the fixed twin, fidelity 4.48 vs 2.55; seeds + 1000:
coverage 5.26 vs 2.83, fidelity 4.90 vs 2.49.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._beginner_gan import (digits, mlp_discriminator, mlp_generator,
                                                noise, real_batches, record)

TITLE = "Doubts in compiling discriminator for the combined model"
LINK = "https://github.com/eriklindernoren/Keras-GAN/issues/91"
EXPECTED = ("REQUIRES_GRAD_TURNED_OFF", "FROZEN_PARAMETERS", "NO_GRADIENT")
STEPS = 400


def make_trainable(net, flag):
    for p in net.parameters():
        p.requires_grad = flag


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, held_out = digits()
    G, D = mlp_generator(nn.Sigmoid()), mlp_discriminator()
    opt_g = torch.optim.Adam(G.parameters(), lr=2e-4, betas=(0.5, 0.999))
    opt_d = torch.optim.Adam(D.parameters(), lr=2e-4, betas=(0.5, 0.999))

    def reset_grad():
        opt_g.zero_grad()
        opt_d.zero_grad()

    with nd.watch(D, opt_d, **watch) as mon:
        for real in real_batches(x, steps):
            ones, zeros = torch.ones(len(real), 1), torch.zeros(len(real), 1)
            if fixed:
                make_trainable(D, True)             # BUG: missing - D stays frozen
            d_loss = F.binary_cross_entropy_with_logits(D(real), ones) + \
                F.binary_cross_entropy_with_logits(D(G(noise(len(real)))), zeros)
            reset_grad()
            d_loss.backward()
            opt_d.step()
            mon.step(d_loss)
            make_trainable(D, False)                # freeze D for the generator's step
            g_loss = F.binary_cross_entropy_with_logits(D(G(noise(len(real)))), ones)
            reset_grad()
            g_loss.backward()
            opt_g.step()
    return record(mon, G, held_out)
