"""A WGAN-GP whose gradient penalty differentiates the critic's sigmoid output while its
Wasserstein loss reads the raw score: the penalty asks sigmoid(score) to have unit
gradient norm, so it holds the raw score's slope to 1 / sigmoid'(score) (4 and up) where
the method asks for 1, and the penalty grows as the critic saturates. The critic the
generator learns from is then far from the 1-Lipschitz one the method needs.

Reported: "WGAN_GP - tensorflow" -
https://github.com/hwalsuklee/tensorflow-generative-model-collections/issues/14 ("When
calculating gradient penalty, you write: D_inter,_,_=self.discriminator(interpolates ...)
gradients = tf.gradients(D_inter, [interpolates])[0] You use the sigmoid output of the
Discriminator, not the logits."; the author: "You are right. I made mistakes in using
output of the Discriminator. It must be logits of the Discriminator. I fixed codes.").
Here a WGAN-GP on the 8x8 digits (an MLP generator and critic, 5 critic steps per generator
step) whose critic returns its sigmoid output and its score, as the report's does. Fix:
take the penalty's gradient of the score.

Measured (200 generator steps, 512 samples against 512 real digits): a sample lies 1.72
from its nearest real digit for the bug, 1.42 for the fixed twin, and a real digit 2.09
from its nearest sample (the digits the generator covers) for the bug, 1.57 for the twin;
the same within 0.03 at seed shift 1000.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "WGAN_GP - tensorflow"
LINK = "https://github.com/hwalsuklee/tensorflow-generative-model-collections/issues/14"
EXPECTED = ("GRADIENT_PENALTY_ON_SQUASHED_OUTPUT",)
STEPS = 200
CRITIC_STEPS = 5
LATENT = 16
PENALTY = 10.0


def generator():
    return nn.Sequential(nn.Linear(LATENT, 64), nn.ReLU(), nn.Linear(64, 64), nn.Sigmoid())


class Critic(nn.Module):
    """Returns (sigmoid(score), score), like the report's discriminator."""

    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(64, 64), nn.LeakyReLU(0.2), nn.Linear(64, 1))

    def forward(self, x):
        score = self.net(x)
        return torch.sigmoid(score), score


def gradient_penalty(D, real, fake, fixed):
    mix = torch.rand(len(real), 1)
    between = (mix * real + (1 - mix) * fake).requires_grad_(True)
    probability, score = D(between)
    judged = score if fixed else probability       # BUG: the sigmoid output, not the score
    grad, = torch.autograd.grad(judged.sum(), between, create_graph=True)
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
    G, D = generator(), Critic()
    opt_g = torch.optim.Adam(G.parameters(), lr=1e-3, betas=(0.5, 0.9))
    opt_d = torch.optim.Adam(D.parameters(), lr=1e-3, betas=(0.5, 0.9))
    with nd.watch(G, opt_g, **watch) as mon:
        data = batches(x, y, steps * CRITIC_STEPS)
        for _ in range(steps):
            for _ in range(CRITIC_STEPS):
                real, _ = next(data)
                fake = G(torch.randn(len(real), LATENT)).detach()
                d_loss = D(fake)[1].mean() - D(real)[1].mean() + \
                    PENALTY * gradient_penalty(D, real, fake, fixed)
                opt_d.zero_grad()
                d_loss.backward()
                opt_d.step()
            g_loss = -D(G(torch.randn(64, LATENT)))[1].mean()
            opt_g.zero_grad()
            g_loss.backward()
            opt_g.step()
            mon.step(g_loss)
    mon.sample_distances = sample_distances(G, x)
    return mon
