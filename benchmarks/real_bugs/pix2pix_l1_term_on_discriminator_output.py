"""A pix2pix generator loss whose L1 term compares the DISCRIMINATOR's output with a tensor of
ones instead of the generated image with the target image. The weighted L1 term (lambda
100) that ties each output to its own target becomes a second, 100x larger adversarial
term, so the generator is trained by the discriminator alone: it learns to produce
plausible-looking images, not the translation of its input. The losses fall; nothing
errors.

Reported: "Error in loss calculation in pix2pix example!" -
https://github.com/PacktPublishing/Hands-On-Image-Generation-with-TensorFlow-2.0/issues/19
(the generator's MAE loss "is supposed to be between the target image and the generated
image, but in your example, the MAE is between the output of the discriminator and
real_labels (tf.ones)"). Here a small pix2pix on the 8x8 digits in [-1, 1]
(benchmarks/real_bugs/_i2i.py): the input is the digit blurred (3x3 box) and dimmed (ink x
0.5), the target the sharp digit; an instance-norm translator with a tanh output and a
conditional PatchGAN-style discriminator reading (input, output) pairs; BCE adversarial
loss, L1 weight 100. Fix: ``L1(fake, target)``.

Measured (300 steps, batch 32, Adam 2e-3 / 0.5, L1 of the 297 held-out translations against
their targets, [-1, 1] units): 0.318 for the bug, 0.095 for the fixed twin (seed 0);
seeds + 1000: 0.260 vs 0.095.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._i2i import HELD_OUT, digits_pm1, patch_discriminator, translator

TITLE = "Error in loss calculation in pix2pix example!"
LINK = "https://github.com/PacktPublishing/Hands-On-Image-Generation-with-TensorFlow-2.0/issues/19"
EXPECTED = ("LOSS_ARGUMENTS_SWAPPED",)
STEPS = 300
L1_WEIGHT = 100.0


def degrade(sharp):
    """The translator's input: the digit (in [-1, 1]) blurred and its ink halved."""
    blurred = F.avg_pool2d(sharp, 3, stride=1, padding=1, count_include_pad=False)
    return (blurred + 1) * 0.5 - 1


def bce(logits, real):
    return F.binary_cross_entropy_with_logits(logits, torch.full_like(logits, float(real)))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x = digits_pm1()
    train, held_out = x[:-HELD_OUT], x[-HELD_OUT:]
    generator = translator(channels=1)
    discriminator = patch_discriminator(channels=2)
    g_opt = torch.optim.Adam(generator.parameters(), lr=2e-3, betas=(0.5, 0.999))
    d_opt = torch.optim.Adam(discriminator.parameters(), lr=2e-3, betas=(0.5, 0.999))
    with nd.watch(generator, g_opt, **watch) as mon:
        for index in index_batches(len(train), steps, 32, seed=0):
            target = train[index]
            source = degrade(target)
            fake = generator(source)
            judged = discriminator(torch.cat([source, fake], 1))
            if fixed:
                l1 = F.l1_loss(fake, target)
            else:   # BUG: the "MAE" reads the discriminator's output against ones
                l1 = F.l1_loss(judged, torch.ones_like(judged))
            loss = bce(judged, True) + L1_WEIGHT * l1
            g_opt.zero_grad()
            loss.backward()
            g_opt.step()
            mon.step(loss)
            d_loss = (bce(discriminator(torch.cat([source, target], 1)), True)
                      + bce(discriminator(torch.cat([source, fake.detach()], 1)), False)) / 2
            d_opt.zero_grad()
            d_loss.backward()
            d_opt.step()
    with torch.no_grad():
        mon.held_out_error = F.l1_loss(generator(degrade(held_out)), held_out).item()
    return mon
