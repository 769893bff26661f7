"""A WGAN-GP whose gradient penalty takes the norm of the critic's input gradient over
dim=1 of an image-shaped (batch, channel, height, width) gradient: dim=1 is the channel
axis, so the "norm" is one number per pixel (with one channel, the pixel's |gradient|) and
the penalty asks every pixel's gradient to be 1 in size, which holds the whole gradient's
norm near sqrt(height * width) instead of 1. The critic the generator learns from is then
far steeper than the 1-Lipschitz one the method needs.

Reported: "A mistake on gradient penalty" - https://github.com/Zeleni9/pytorch-wgan/issues/40
("The shape of `gradients` is [batch_size, 1, 32, 32], the above `norm(2, dim=1)` is
actually not behaving as you may want (and returns a tensor with shape [batch_size, 32,
32]). This is actually enforcing `gradients` to be closer to 1 **element-wise**. So the
gradient and the lipschitz are much bigger than 1."; a user: "You're right. The gradient
penalty is now stable"). Here a WGAN-GP on the 8x8 digits: an MLP generator that outputs
(batch, 1, 8, 8) images and a convolutional critic, 5 critic steps per generator step,
watched on the critic's turns. Fix: flatten the gradient per sample before the norm.

Measured (30 generator steps, 150 critic steps): the critic's input-gradient norm between
real and generated digits ends at 9.2 for the bug and 1.1 for the fixed twin (the method
asks for 1). The samples' distances to the digits do not separate at this length.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "A mistake on gradient penalty"
LINK = "https://github.com/Zeleni9/pytorch-wgan/issues/40"
EXPECTED = ("GRADIENT_PENALTY_NORM_OVER_ONE_AXIS",)
STEPS = 30
CRITIC_STEPS = 5
LATENT = 16
PENALTY = 10.0


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(LATENT, 128), nn.ReLU(), nn.Linear(128, 64),
                                 nn.Sigmoid())

    def forward(self, z):
        return self.net(z).view(-1, 1, 8, 8)


def critic():
    return nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.LeakyReLU(0.2),
                         nn.Conv2d(8, 16, 3, stride=2, padding=1), nn.LeakyReLU(0.2),
                         nn.Flatten(), nn.Linear(16 * 4 * 4, 1))


def input_gradients(D, real, fake):
    mix = torch.rand(len(real), 1, 1, 1)
    between = (mix * real + (1 - mix) * fake).requires_grad_(True)
    score = D(between)
    grad, = torch.autograd.grad(score, between, torch.ones_like(score), create_graph=True)
    return grad


def gradient_penalty(D, real, fake, fixed):
    grad = input_gradients(D, real, fake)
    if fixed:
        grad = grad.view(len(grad), -1)
    return ((grad.norm(2, dim=1) - 1) ** 2).mean()    # BUG (fixed=False): a norm per pixel


def sample_distances(G, x, n=512, seed=1):
    generator_ = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        d = torch.cdist(G(torch.randn(n, LATENT, generator=generator_)).view(n, -1),
                        x[:n].view(n, -1))
    return round(d.min(dim=1).values.mean().item(), 2), \
        round(d.min(dim=0).values.mean().item(), 2)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification(images=True)
    G, D = Generator(), critic()
    opt_g = torch.optim.Adam(G.parameters(), lr=1e-3, betas=(0.5, 0.9))
    opt_d = torch.optim.Adam(D.parameters(), lr=1e-3, betas=(0.5, 0.9))
    with nd.watch(D, opt_d, **watch) as mon:
        data = batches(x, y, steps * CRITIC_STEPS)
        for _ in range(steps):
            for _ in range(CRITIC_STEPS):
                real, _ = next(data)
                fake = G(torch.randn(len(real), LATENT)).detach()
                d_loss = D(fake).mean() - D(real).mean() + \
                    PENALTY * gradient_penalty(D, real, fake, fixed)
                opt_d.zero_grad()
                d_loss.backward()
                opt_d.step()
                mon.step(d_loss)
            g_loss = -D(G(torch.randn(64, LATENT))).mean()
            opt_g.zero_grad()
            g_loss.backward()
            opt_g.step()
    real = x[:64]
    fake = G(torch.randn(64, LATENT)).detach()
    mon.gradient_norm = round(float(input_gradients(D, real, fake).detach().view(64, -1)
                                    .norm(dim=1).mean()), 2)
    mon.sample_distances = sample_distances(G, x)
    return mon
