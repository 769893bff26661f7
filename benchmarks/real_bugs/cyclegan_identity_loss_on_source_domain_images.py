"""CycleGAN whose identity loss feeds each generator images of its own SOURCE domain: the A->B
generator is asked to return an A image unchanged (||G_A2B(A) - A||) instead of returning a
B image unchanged (||G_A2B(B) - B||). The term meant to keep colours when a generator is
shown an image already in its target domain becomes a term that forbids it to translate,
and it fights the adversarial loss on every step: the losses fall and the outputs stay
close to their inputs. Nothing errors.

Reported: "Identity loss computed wrongly?" -
https://github.com/LynnHo/CycleGAN-Tensorflow-2/issues/19 (``A2B_id_loss =
identity_loss_fn(A, A2B)`` compares an A image with its translation; the identity loss
should compare A with G_B2A(A); the author: "You are right! I have corrected the
mistake"). Here a small CycleGAN on two-colour 8x8 digits (benchmarks/real_bugs/_i2i.py:
domain A draws the digit in the first channel, domain B in the second; unpaired halves of
the training digits), instance-norm generators with tanh outputs, PatchGAN-style LSGAN
discriminators, cycle weight 10 and identity weight 10 (a user who raised the identity
weight, as in junyanz/pytorch-CycleGAN-and-pix2pix#1159). Fix: the identity loss of
G_A2B on B images and of G_B2A on A images.

Measured (300 steps, batch 32, 297 held-out digits, MSE of G_A2B(A) against the true
translation, pixels in [-1, 1]): 0.922 for the bug, 0.0085 for the fixed twin (seed 0);
seeds + 1000: 0.927 vs 0.0081.
"""
import itertools

import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._i2i import patch_discriminator, to_b, translator, unpaired_domains

TITLE = "Identity loss computed wrongly?"
LINK = "https://github.com/LynnHo/CycleGAN-Tensorflow-2/issues/19"
EXPECTED = ("LOSS_ARGUMENTS_SWAPPED",)
STEPS = 300
CYCLE_WEIGHT = 10.0
IDENTITY_WEIGHT = 10.0


def lsgan(logits, real):
    return F.mse_loss(logits, torch.full_like(logits, 1.0 if real else 0.0))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train_a, train_b, held_out = unpaired_domains()
    generators = nn.ModuleDict({"a2b": translator(), "b2a": translator()})
    d_a, d_b = patch_discriminator(), patch_discriminator()
    g_opt = torch.optim.Adam(generators.parameters(), lr=2e-3, betas=(0.5, 0.999))
    d_opt = torch.optim.Adam(itertools.chain(d_a.parameters(), d_b.parameters()), lr=2e-3,
                             betas=(0.5, 0.999))
    a2b, b2a = generators["a2b"], generators["b2a"]
    batches_a = index_batches(len(train_a), steps, 32, seed=0)
    batches_b = index_batches(len(train_b), steps, 32, seed=1)
    with nd.watch(generators, g_opt, **watch) as mon:
        for ia, ib in zip(batches_a, batches_b):
            a, b = train_a[ia], train_b[ib]
            fake_b, fake_a = a2b(a), b2a(b)
            adversarial = lsgan(d_b(fake_b), True) + lsgan(d_a(fake_a), True)
            cycle = F.l1_loss(b2a(fake_b), a) + F.l1_loss(a2b(fake_a), b)
            if fixed:
                identity = F.l1_loss(a2b(b), b) + F.l1_loss(b2a(a), a)
            else:   # BUG: each generator is shown its own source domain and told to keep it
                identity = F.l1_loss(a2b(a), a) + F.l1_loss(b2a(b), b)
            loss = adversarial + CYCLE_WEIGHT * cycle + IDENTITY_WEIGHT * identity
            g_opt.zero_grad()
            loss.backward()
            g_opt.step()
            mon.step(loss)
            d_loss = (lsgan(d_b(b), True) + lsgan(d_b(fake_b.detach()), False)
                      + lsgan(d_a(a), True) + lsgan(d_a(fake_a.detach()), False)) / 2
            d_opt.zero_grad()
            d_loss.backward()
            d_opt.step()
    with torch.no_grad():
        mon.held_out_error = F.mse_loss(a2b(held_out), to_b(held_out)).item()
    return mon
