"""A WGAN-GP whose critic keeps the batch normalisation of the DCGAN discriminator it was
copied from. The critic scores the real batch, the generated batch and the interpolates in
three separate calls, and in training mode each call is normalised with its own batch's
mean and variance: the mean difference between real and generated digits - the first
thing a critic should see - is divided out of every call, each score depends on the rest
of its batch, and the per-sample gradient penalty no longer constrains the function the
Wasserstein loss reads. The generator learns from a critic that can barely tell the two
batches apart.

Reported: "wgan-gp" - https://github.com/eriklindernoren/Keras-GAN/issues/48 ("the paper
said 'No critic batch normalization',but u add batch normalization every layer,why?"; a
reply: "he copy the critic network simply from wgan.py"). Here an MLP generator and critic
on the 8x8 digits (1,200 training digits), the critic's hidden layer followed by
BatchNorm1d as in the report's critic, 5 critic steps per generator step, penalty weight
10 on interpolates between real and generated digits, Adam with the WGAN-GP paper's betas
(at 1e-3; the report's RMSprop at 5e-5 trains neither version far in this many steps);
watched on the critic. Fix: no batch normalisation in the critic (the paper's advice).

Measured (1,000 critic steps, 200 generator steps; 512 samples against the 597 held-out
digits, mean distance from a sample to its nearest held-out digit / from a held-out digit
to its nearest sample, lower is better): 3.08 / 3.30 with the bug, 1.42 / 1.58
fixed; seeds + 1000: 3.14 / 3.34 vs 1.42 / 1.59.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._wgan336 import digits, generator, held_out_distances, noise

TITLE = "wgan-gp"
LINK = "https://github.com/eriklindernoren/Keras-GAN/issues/48"
EXPECTED = ("BATCH_MIXING",)
STEPS = 1000
N_CRITIC = 5
PENALTY = 10.0


def critic(fixed):
    if fixed:
        return nn.Sequential(nn.Linear(64, 64), nn.LeakyReLU(0.2), nn.Linear(64, 1))
    return nn.Sequential(nn.Linear(64, 64), nn.BatchNorm1d(64),     # BUG: batch statistics
                         nn.LeakyReLU(0.2), nn.Linear(64, 1))


def gradient_penalty(D, real, fake):
    alpha = torch.rand(len(real), 1)
    between = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
    grad, = torch.autograd.grad(D(between).sum(), between, create_graph=True)
    return ((grad.norm(2, dim=1) - 1) ** 2).mean()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, held_out = digits()
    G, D = generator(), critic(fixed)
    opt_g = torch.optim.Adam(G.parameters(), lr=1e-3, betas=(0.5, 0.9))
    opt_d = torch.optim.Adam(D.parameters(), lr=1e-3, betas=(0.5, 0.9))
    data = batches(x, y, steps)
    with nd.watch(D, opt_d, **watch) as mon:
        for _ in range(steps // N_CRITIC):
            for _ in range(N_CRITIC):
                real, _ = next(data)
                fake = G(noise(len(real))).detach()
                loss_d = D(fake).mean() - D(real).mean() + \
                    PENALTY * gradient_penalty(D, real, fake)
                opt_d.zero_grad()
                loss_d.backward()
                opt_d.step()
                mon.step(loss_d)
            loss_g = -D(G(noise(64))).mean()
            opt_g.zero_grad()
            loss_g.backward()
            opt_g.step()
    mon.held_out_distances = held_out_distances(G, held_out)
    return mon
