"""A misplaced parenthesis in the WGAN critic's loss: ``-mean(D(real) + mean(D(fake)))``
instead of ``-mean(D(real)) + mean(D(fake))``. The fake score enters with the real score's
sign, so the critic is trained to raise its score on real AND generated images alike; it
never learns to tell them apart, and the generator, which follows the critic's score,
learns nothing about the digits. The losses stay finite (the weights are clipped) and the
critic's loss falls steadily.

Reported: "wgan code: typo in loss function" -
https://github.com/YeonwooSung/GAN_Implementation/issues/5 ("there is a typo in loss
function of Disc: `loss_D = - torch.mean(discriminator(real_imgs) +
torch.mean(discriminator(fake_imgs)))` the parenthesis of first mean() is closed at the end
of the line which is wrong. due to this the network collapses fast. I tested the corrected
code and it works"; the author applied the fix). Here the report's WGAN (weight clipping at
0.01, RMSprop, five critic steps per generator step) on the 8x8 digits, fully connected
generator with a sigmoid into the pixels' [0, 1], fully connected critic without
activation. The watched model is the critic, whose loss holds the typo. Fix: close the
first mean() after the real images' scores.

Measured on the 397 held-out digits (512 samples after training, clipped to [0, 1]; mean
distance from a held-out digit to its nearest sample - coverage - and from a sample to its
nearest held-out digit - fidelity; lower is better, 512 real training digits score 1.3 /
1.4): coverage 3.82 vs 2.36 for the fixed twin, fidelity 4.03 vs 2.08; seeds + 1000:
coverage 3.90 vs 2.34, fidelity 3.98 vs 2.12.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._beginner_gan import (digits, mlp_discriminator, mlp_generator,
                                                noise, real_batches, record)

TITLE = "wgan code: typo in loss function"
LINK = "https://github.com/YeonwooSung/GAN_Implementation/issues/5"
EXPECTED = ("LOSS_SIGN_FLIPPED", "LOSS_UNBOUNDED_BELOW")
STEPS = 400
N_CRITIC = 5
CLIP = 0.01


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, held_out = digits()
    G, D = mlp_generator(nn.Sigmoid()), mlp_discriminator()
    opt_g = torch.optim.RMSprop(G.parameters(), lr=5e-5)
    opt_d = torch.optim.RMSprop(D.parameters(), lr=5e-5)
    with nd.watch(D, opt_d, **watch) as mon:
        for i, real in enumerate(real_batches(x, steps)):
            fake = G(noise(len(real))).detach()
            opt_d.zero_grad()
            if fixed:
                loss_d = -torch.mean(D(real)) + torch.mean(D(fake))
            else:                                   # BUG: the first mean() closes late
                loss_d = -torch.mean(D(real) + torch.mean(D(fake)))
            loss_d.backward()
            opt_d.step()
            mon.step(loss_d)
            for p in D.parameters():
                p.data.clamp_(-CLIP, CLIP)
            if i % N_CRITIC == 0:
                opt_g.zero_grad()
                loss_g = -torch.mean(D(G(noise(len(real)))))
                loss_g.backward()
                opt_g.step()
    return record(mon, G, held_out)
