"""Shared pieces of real-bug batch 169 (regularisation written by hand): the 8x8 digits
split into training and held-out rows, a residual MLP whose branches a drop-path layer can
skip, and held-out accuracy."""
import numpy as np
import torch
from torch import nn

from benchmarks.real_bugs._common import classification

HELD_OUT = 500


def split(images=False, seed=0):
    """The digits shuffled by ``seed``: (x_train, y_train, x_held_out, y_held_out), the last
    ``HELD_OUT`` rows held out."""
    x, y = classification(images=images)
    order = torch.from_numpy(np.random.default_rng(seed).permutation(len(x)))
    x, y = x[order], y[order]
    return x[:-HELD_OUT], y[:-HELD_OUT], x[-HELD_OUT:], y[-HELD_OUT:]


class ResidualMLP(nn.Module):
    """Input layer, ``depth`` pre-norm residual blocks each adding ``drop(branch(x))``, and a
    linear head. ``drops``: one module per block wrapping its branch's output."""

    def __init__(self, drops, width=64, inputs=64, classes=10):
        super().__init__()
        self.stem = nn.Linear(inputs, width)
        self.norms = nn.ModuleList(nn.LayerNorm(width) for _ in drops)
        self.branches = nn.ModuleList(
            nn.Sequential(nn.Linear(width, 2 * width), nn.GELU(), nn.Linear(2 * width, width))
            for _ in drops)
        self.drops = nn.ModuleList(drops)
        self.head = nn.Sequential(nn.LayerNorm(width), nn.Linear(width, classes))

    def forward(self, x):
        h = self.stem(x)
        for norm, branch, drop in zip(self.norms, self.branches, self.drops):
            h = h + drop(branch(norm(h)))
        return self.head(h)


def accuracy(model, x, y):
    """Share of ``x`` classified as ``y`` with the model in eval mode (put back after)."""
    was = model.training
    model.eval()
    with torch.no_grad():
        right = (model(x).argmax(dim=1) == y).float().mean().item()
    model.train(was)
    return round(right, 3)


# A Wasserstein critic between two Gaussians whose distance is known: N(0, I) and the same
# shifted by SHIFT along the first of DIM axes, so W1 = SHIFT exactly. A 1-Lipschitz critic
# trained to maximise E_p f - E_q f estimates it; a critic whose Lipschitz constraint fails
# reports more.
DIM, SHIFT = 16, 2.0


def gaussian_pair(n, generator=None):
    """(p, q): n points of the shifted Gaussian and n of the standard one."""
    shift = torch.zeros(DIM)
    shift[0] = SHIFT
    return (torch.randn(n, DIM, generator=generator) + shift,
            torch.randn(n, DIM, generator=generator))


def critic_report(critic, n=20000, seed=12345):
    """(W1 estimate on fresh points, mean norm of the critic's input gradient there), the
    critic in eval mode; the method asks for SHIFT and at most 1."""
    critic.eval()
    p, q = gaussian_pair(n, torch.Generator().manual_seed(seed))
    with torch.no_grad():      # one call for both: a critic that varies between calls
        scores = critic(torch.cat([p, q]))          # is read through a single draw
        estimate = (scores[:n].mean() - scores[n:].mean()).item()
    points = torch.cat([p[:2000], q[:2000]]).requires_grad_(True)
    grad, = torch.autograd.grad(critic(points).sum(), points)
    critic.train()
    return round(estimate, 3), round(grad.norm(dim=1).mean().item(), 3)
