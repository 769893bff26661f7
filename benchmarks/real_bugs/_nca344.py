"""A small growing neural cellular automaton (the Distill "Growing Neural Cellular
Automata" recipe, shrunk to run on a CPU in seconds), shared by batch 344's cases.

Each cell holds 12 channels: RGBA and 8 hidden ones. A step perceives the 3x3 neighbourhood
with fixed identity and Sobel filters (one per channel, a depthwise convolution), runs a
per-cell MLP (two 1x1 convolutions) for the update, applies it to a random half of the cells
(the stochastic update mask), adds it to the state (the residual update) and zeroes every
cell with no neighbour whose alpha exceeds 0.1 (alive masking). The target is a 12x12 RGBA
disc with a coloured ring; the seed is one live cell in the middle; the loss is the mean
squared error of the RGBA channels after the rollout.
"""
import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

SIZE = 12
CHANNELS = 12
HIDDEN = 48


def target():
    """(4, SIZE, SIZE) RGBA in [0, 1]: an orange disc, a blue ring around it, background
    transparent (RGB zero where alpha is zero, as the Distill notebook premultiplies)."""
    yy, xx = np.mgrid[0:SIZE, 0:SIZE] - (SIZE - 1) / 2
    r = np.sqrt(yy ** 2 + xx ** 2)
    img = np.zeros((4, SIZE, SIZE), np.float32)
    inner, ring = r <= 2.2, (r > 2.2) & (r <= 4.2)
    img[:, inner] = np.array([1.0, 0.55, 0.1, 1.0], np.float32)[:, None]
    img[:, ring] = np.array([0.15, 0.35, 0.9, 1.0], np.float32)[:, None]
    return torch.from_numpy(img)


def seed(batch=1):
    """The single live cell: alpha and hidden channels 1 at the centre, all else 0."""
    x = torch.zeros(batch, CHANNELS, SIZE, SIZE)
    x[:, 3:, SIZE // 2, SIZE // 2] = 1.0
    return x


def perception_filters():
    """Identity, Sobel-x and Sobel-y (divided by 8), one of each per channel: (3C, 1, 3, 3)."""
    ident = torch.tensor([[0., 0., 0.], [0., 1., 0.], [0., 0., 0.]])
    sobel_x = torch.tensor([[-1., 0., 1.], [-2., 0., 2.], [-1., 0., 1.]]) / 8
    kernels = torch.stack([ident, sobel_x, sobel_x.T])
    return kernels.repeat(CHANNELS, 1, 1)[:, None]


def alive(x):
    return F.max_pool2d(x[:, 3:4], 3, stride=1, padding=1) > 0.1


class CA(nn.Module):
    """The update rule. ``zero_last``: start the last layer at zero (the "do nothing" rule)."""

    def __init__(self, zero_last=True, fire_rate=0.5):
        super().__init__()
        self.register_buffer("filters", perception_filters())
        self.fc0 = nn.Conv2d(3 * CHANNELS, HIDDEN, 1)
        self.fc1 = nn.Conv2d(HIDDEN, CHANNELS, 1, bias=False)
        if zero_last:
            nn.init.zeros_(self.fc1.weight)
        self.fire_rate = fire_rate

    def perceive(self, x):
        return F.conv2d(x, self.filters, padding=1, groups=CHANNELS)

    def fire(self, x, generator=None):
        """The stochastic per-cell update mask: each cell updates with probability fire_rate."""
        return (torch.rand(x.shape[0], 1, SIZE, SIZE, generator=generator)
                <= self.fire_rate).float()

    def forward(self, x, steps, generator=None):
        for _ in range(steps):
            pre = alive(x)
            dx = self.fc1(F.relu(self.fc0(self.perceive(x))))
            x = x + dx * self.fire(x, generator)
            x = x * (pre & alive(x)).float()
        return x


def rgba_loss(x, goal):
    return ((x[:, :4] - goal) ** 2).mean()


@torch.no_grad()
def held_out_error(model, goal, seed_value=12345, rollouts=8, lengths=(20, 24)):
    """RGBA mean squared error of fresh rollouts from the seed (new update masks, rollout
    lengths the training never drew), averaged; a NaN or blown-up grid counts as 1.0 (the
    error of predicting nothing is about 0.4)."""
    gen = torch.Generator().manual_seed(seed_value)
    errors = []
    for steps in lengths:
        x = model(seed(rollouts), steps, generator=gen)
        err = ((x[:, :4].clamp(0, 1) - goal) ** 2).mean().item()
        errors.append(err if np.isfinite(err) else 1.0)
    return float(np.mean(errors))
