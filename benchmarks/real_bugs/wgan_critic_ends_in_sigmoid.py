"""A Wasserstein GAN whose critic ends in a sigmoid, as a standard GAN's discriminator
does. The Wasserstein loss reads the critic's raw score: squashed into (0, 1), the score
saturates as soon as the critic separates real from fake, its gradient to the generator
shrinks by the sigmoid's slope, and the generator learns slowly or not at all.

Reported: "Critic in T-WGAN followed by a sigmoid activation function." -
https://github.com/bojone/T-GANs/issues/3 ("In the original WGAN paper, there is no
sigmoid function after the critic, so why the code use sigmoid in T-WGAN"; the author:
"oh, sorry. it is just a handwriting mistake while I prepare the code to github. I have
corrected it now."). Here a WGAN with gradient penalty on the 8x8 digits (an MLP generator
and critic, 5 critic steps per generator step). Fix: no activation after the critic's
last layer.

Measured (200 generator steps, 512 samples against 512 real digits): a sample lies 1.72
from its nearest real digit for the bug, 1.42 for the fixed twin, and a real digit 2.12
from its nearest sample (the digits the generator covers) for the bug, 1.57 for the twin;
the same within 0.05 at seed shifts 1000 and 2000.

As it came watch named LOSS_DIVERGING only (the generator's loss, -mean(sigmoid(score)),
rises as the critic wins). How watch finds it: on the first recorded steps the generator's
loss is the negated mean of a SigmoidBackward0 fed straight by the critic's last linear
layer: a plain average of a squashed score, with no log and no target.
CRITIC_OUTPUT_SQUASHED.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "Critic in T-WGAN followed by a sigmoid activation function."
LINK = "https://github.com/bojone/T-GANs/issues/3"
EXPECTED = ("CRITIC_OUTPUT_SQUASHED",)
STEPS = 200
CRITIC_STEPS = 5
LATENT = 16
PENALTY = 10.0


def generator():
    return nn.Sequential(nn.Linear(LATENT, 64), nn.ReLU(), nn.Linear(64, 64), nn.Sigmoid())


def critic(fixed):
    layers = [nn.Linear(64, 64), nn.LeakyReLU(0.2), nn.Linear(64, 1)]
    if not fixed:
        layers.append(nn.Sigmoid())                 # BUG: a WGAN critic's score is unbounded
    return nn.Sequential(*layers)


def gradient_penalty(D, real, fake):
    mix = torch.rand(len(real), 1)
    between = (mix * real + (1 - mix) * fake).requires_grad_(True)
    grad, = torch.autograd.grad(D(between).sum(), between, create_graph=True)
    return ((grad.norm(dim=1) - 1) ** 2).mean()


def sample_distances(G, x, n=512, seed=1):
    """(mean distance from a sample to its nearest real digit, from a real digit to its
    nearest sample): low first = realistic samples, low second = the digits covered."""
    generator_ = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        d = torch.cdist(G(torch.randn(n, LATENT, generator=generator_)), x[:n])
    return d.min(dim=1).values.mean().item(), d.min(dim=0).values.mean().item()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    G, D = generator(), critic(fixed)
    opt_g = torch.optim.Adam(G.parameters(), lr=1e-3, betas=(0.5, 0.9))
    opt_d = torch.optim.Adam(D.parameters(), lr=1e-3, betas=(0.5, 0.9))
    with nd.watch(G, opt_g, **watch) as mon:
        data = batches(x, y, steps * CRITIC_STEPS)
        for _ in range(steps):
            for _ in range(CRITIC_STEPS):
                real, _ = next(data)
                fake = G(torch.randn(len(real), LATENT)).detach()
                d_loss = D(fake).mean() - D(real).mean() + PENALTY * gradient_penalty(D, real, fake)
                opt_d.zero_grad()
                d_loss.backward()
                opt_d.step()
            g_loss = -D(G(torch.randn(64, LATENT))).mean()
            opt_g.zero_grad()
            g_loss.backward()
            opt_g.step()
            mon.step(g_loss)
    mon.sample_distances = sample_distances(G, x)
    return mon
