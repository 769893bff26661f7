"""A Langevin sampler written as a torch optimizer (SGLD: each step moves the chains by
``-lr * grad + sqrt(2 lr) * noise``) whose loop never zeroes the gradient. The energy's
gradient is accumulated into the chains' ``.grad`` by ``backward()`` on every step and
nothing clears it, so step t moves the chains by the SUM of all t gradients so far: the
drift grows without bound while the noise stays the same, the chains turn into an
ever-faster gradient descent that overshoots and rings around the modes, and the samples
are not drawn from the target at all. Nothing errors; the energy the loop reports keeps
moving like a sampler's.

Reported: "Didn't zero the gradient in the optimizer" -
https://github.com/alisiahkoohi/Langevin-dynamics/issues/1 (the reporter noticed that
the repository's ``LangevinDynamics`` sampler never called ``self.optim.zero_grad()``, and
that with plain SGLD instead of the preconditioned variant the samples of a Gaussian came
out wrong; the maintainer: "Good catch! I will update it", and the sampler now zeroes the
gradient before each ``backward()``). Here: 512 chains (an ``nn.Parameter`` of positions)
sampling the 2-D ring of eight Gaussians (benchmarks/real_bugs/_energy_models.py) whose
exact energy is known, plain SGLD at a step of 1e-3, started uniformly in [-3, 3]^2.
Fix: ``optimizer.zero_grad()`` before each ``backward()``.

Measured (400 steps; the 512 samples against the target: mean distance to the nearest
mode, 0.32 for exact samples, and the squared MMD, Gaussian kernel of bandwidth 0.5,
against 512 fresh draws of the ring): seed 0, distance 0.81 for the bug against 0.33 for
the fixed twin, MMD 0.029 against 0.005; seeds shifted by 1000, 0.82 against 0.32, MMD
0.031 against 0.003.
"""
import math

import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._energy_models import SPREAD, centres, mode_distance, ring

TITLE = "Didn't zero the gradient in the optimizer"
LINK = "https://github.com/alisiahkoohi/Langevin-dynamics/issues/1"
EXPECTED = ("GRADIENTS_ACCUMULATING",)
STEPS = 400
CHAINS = 512
LR = 1e-3


def ring_energy(x):
    """-log p(x) of the ring mixture, up to a constant."""
    squared = torch.cdist(x, centres()).pow(2)
    return -torch.logsumexp(-squared / (2 * SPREAD ** 2), dim=1)


class Chains(nn.Module):
    """The sampler's state: one position per chain; forward gives each chain's energy."""

    def __init__(self, n):
        super().__init__()
        self.x = nn.Parameter(torch.rand(n, 2) * 6 - 3)

    def forward(self):
        return ring_energy(self.x)


class SGLD(torch.optim.Optimizer):
    """Stochastic gradient Langevin dynamics: x <- x - lr * grad + sqrt(2 lr) * N(0, I)."""

    def __init__(self, params, lr):
        super().__init__(params, {"lr": lr})

    @torch.no_grad()
    def step(self):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    p.add_(-group["lr"] * p.grad + math.sqrt(2 * group["lr"])
                           * torch.randn_like(p))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    chains = Chains(CHAINS)
    optimizer = SGLD(chains.parameters(), lr=LR)
    with nd.watch(chains, optimizer, **watch) as mon:
        for _ in range(steps):
            if fixed:
                optimizer.zero_grad()
            loss = chains().sum()         # BUG (fixed=False): .grad keeps every past gradient
            loss.backward()
            optimizer.step()
            mon.step(loss / CHAINS)
    samples = chains.x.detach()
    mon.sample_mode_distance = mode_distance(samples)
    held_out = ring(CHAINS, 1)
    mon.held_out_mmd = mmd(samples, held_out)
    return mon


def mmd(a, b, bandwidth=0.5):
    """Squared maximum mean discrepancy with a Gaussian kernel (0 for equal laws)."""
    def k(u, v):
        return torch.exp(-torch.cdist(u, v).pow(2) / (2 * bandwidth ** 2)).mean()
    return (k(a, a) + k(b, b) - 2 * k(a, b)).item()
