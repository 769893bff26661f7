"""A mixture density network whose loss multiplies the per-dimension Gaussian densities of a
32-dimensional target (``torch.prod`` over the output dimensions) and only then takes the log
of the mixture: a product of 32 densities, each well below 1 for a badly fitted row, underflows
float32 to exactly 0; ``-log(sum(pi * 0))`` is inf and its backward pass 0 / 0 = NaN. The
NaN gradients reach the weights and the network is lost.

Reported: "Numerical instability problem" - https://github.com/sagelywizard/pytorch-mdn/issues/6
(the instability comes "from the multiplication of the probability that can be changed to
addition"; users confirmed it for a 31-dimensional output and for a 5-dimensional input, and
rewrote the loss with ``Normal(mu, sigma).log_prob`` summed over the dimensions and
``logsumexp`` over the components). Here an MDN (3 components, diagonal sigma = exp) predicts
the top half of a digit (32 pixels, standardised) from its bottom half, with the library's
product form. Fix: the log-space loss: sum of log-densities, then logsumexp with log pi.

Measured (300 steps): the bug's loss turns NaN at step 39 and the weights are NaN when it
ends; the fixed twin trains to a mean negative log-likelihood of -4.76 on the digits.
"""
import math

import torch
from torch import nn

from benchmarks.real_bugs import _common

TITLE = "Numerical instability problem"
LINK = "https://github.com/sagelywizard/pytorch-mdn/issues/6"
EXPECTED = ("NAN_BORN_IN_FORWARD", "NAN_BORN_IN_BACKWARD")
STEPS = 300
COMPONENTS = 3
TARGET_DIMS = 32


def halves():
    """Bottom half of each digit as input, top half (standardised per pixel) as target."""
    x, _ = _common.classification()
    top, bottom = x[:, :TARGET_DIMS], x[:, TARGET_DIMS:]
    top = (top - top.mean(0)) / (top.std(0) + 0.1)
    return bottom, top


class MDN(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(64 - TARGET_DIMS, 64), nn.Tanh())
        self.pi = nn.Linear(64, COMPONENTS)
        self.sigma = nn.Linear(64, COMPONENTS * TARGET_DIMS)
        self.mu = nn.Linear(64, COMPONENTS * TARGET_DIMS)

    def forward(self, x):
        h = self.body(x)
        shape = (-1, COMPONENTS, TARGET_DIMS)
        return (torch.log_softmax(self.pi(h), dim=1), torch.exp(self.sigma(h)).view(shape),
                self.mu(h).view(shape))


def product_loss(output, target):
    """The library's form: densities multiplied over the dimensions, then the mixture's log."""
    log_pi, sigma, mu = output
    z = (target.unsqueeze(1) - mu) / sigma
    density = torch.exp(-0.5 * z ** 2) / (sigma * math.sqrt(2 * math.pi))
    mixture = (log_pi.exp() * torch.prod(density, dim=2)).sum(dim=1)
    return -torch.log(mixture).mean()


def log_space_loss(output, target):
    log_pi, sigma, mu = output
    log_density = torch.distributions.Normal(mu, sigma).log_prob(target.unsqueeze(1)).sum(2)
    return -torch.logsumexp(log_pi + log_density, dim=1).mean()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = halves()
    model = MDN()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = log_space_loss if fixed else product_loss
    mon = _common.train_watched(model, optimizer, loss_fn, _common.batches(x, y, steps), **watch)
    with torch.no_grad():
        finite = all(bool(torch.isfinite(p).all()) for p in model.parameters())
        mon.held_in_nll = round(float(log_space_loss(model(x), y)), 3) if finite else "NaN weights"
    return mon
