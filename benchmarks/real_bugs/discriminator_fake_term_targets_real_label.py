"""The discriminator's non-saturating loss gives the fakes the target 1 (ones_like) as it
gives the real images: both of its terms say "real". The discriminator learns to call
everything real, never separates the generator's samples from the data, and the generator
(trained towards "real" as it should be) gets no signal that points at the digits. Every
loss is finite and the discriminator's falls smoothly.

Reported: "typo of discriminator loss in non-saturating type" -
https://github.com/SerezD/vqvae-vqgan-pytorch-lightning/issues/3 (the fake term is
``binary_cross_entropy_with_logits(logits_fake, target=torch.ones_like(logits_fake))``,
"maybe fix it using zeros_like"; the author: "thank you for pointing that out. The
corrected version is now online."). Here the report's two loss functions (the
discriminator's real + fake terms, the generator's non-saturating term) in a plain GAN on
the 8x8 digits (fully connected generator with a sigmoid into the pixels' [0, 1],
fully connected discriminator on logits, the discriminator on detached fakes). The watched
model is the discriminator, whose loss holds the typo. Fix: ``zeros_like`` for the fakes.

Measured on the 397 held-out digits (512 samples after training, clipped to [0, 1]; mean
distance from a held-out digit to its nearest sample - coverage - and from a sample to its
nearest held-out digit - fidelity; lower is better, 512 real training digits score 1.3 /
1.4): coverage 3.96 vs 2.61 for the fixed twin, fidelity 4.08 vs 2.55; seeds + 1000:
coverage 3.93 vs 2.62, fidelity 4.02 vs 2.31.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._beginner_gan import (digits, mlp_discriminator, mlp_generator,
                                                noise, real_batches, record)

TITLE = "typo of discriminator loss in non-saturating type"
LINK = "https://github.com/SerezD/vqvae-vqgan-pytorch-lightning/issues/3"
EXPECTED = ("TARGETS_ALL_ONE_VALUE", "TARGETS_ALL_ONE_CLASS")
STEPS = 400


def discriminator_loss(logits_real, logits_fake, fixed):
    real_loss = F.binary_cross_entropy_with_logits(logits_real, torch.ones_like(logits_real))
    fake_target = torch.zeros_like(logits_fake) if fixed else \
        torch.ones_like(logits_fake)                    # BUG: fakes labelled real
    fake_loss = F.binary_cross_entropy_with_logits(logits_fake, fake_target)
    return (real_loss + fake_loss) / 2


def generator_loss(logits_fake):
    return F.binary_cross_entropy_with_logits(logits_fake, torch.ones_like(logits_fake))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, held_out = digits()
    G, D = mlp_generator(nn.Sigmoid()), mlp_discriminator()
    opt_g = torch.optim.Adam(G.parameters(), lr=1e-3, betas=(0.5, 0.999))
    opt_d = torch.optim.Adam(D.parameters(), lr=1e-3, betas=(0.5, 0.999))
    with nd.watch(D, opt_d, **watch) as mon:
        for real in real_batches(x, steps):
            fake = G(noise(len(real)))
            opt_d.zero_grad()
            d_loss = discriminator_loss(D(real), D(fake.detach()), fixed)
            d_loss.backward()
            opt_d.step()
            mon.step(d_loss)
            opt_g.zero_grad()
            g_loss = generator_loss(D(fake))
            g_loss.backward()
            opt_g.step()
    return record(mon, G, held_out)
