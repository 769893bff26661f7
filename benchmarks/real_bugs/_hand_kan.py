"""Pieces the hand-written Kolmogorov-Arnold network cases share (real-bug batch 340): a
B-spline KAN layer written the way the first from-scratch tutorials write it (Cox-de Boor
on a uniform knot vector, a SiLU base branch beside the spline branch), small synthetic
regression sets drawn with a fixed seed, and the held-out R^2 the cases report."""
import numpy as np
import torch
from torch import nn
from torch.nn import functional as F


def knot_vector(low, high, grid, order, extend=True):
    """The ``grid + 1`` uniform knots on [low, high], and - when ``extend`` - ``order``
    more on each side, so that every point of [low, high] is covered by ``order + 1``
    basis functions (``grid + order`` of them in all)."""
    step = (high - low) / grid
    first, last = (-order, grid + order) if extend else (0, grid)
    return low + step * torch.arange(first, last + 1, dtype=torch.float32)


def bspline_basis(x, knots, order):
    """Cox-de Boor: the B-spline bases of degree ``order`` at every value of ``x`` (B, in)
    for per-input knot vectors ``knots`` (in, m): a (B, in, m - order - 1) tensor. Zero
    wherever x lies outside the knots."""
    x = x.unsqueeze(-1)
    basis = ((x >= knots[:, :-1]) & (x < knots[:, 1:])).to(x.dtype)
    for d in range(1, order + 1):
        left = (x - knots[:, :-(d + 1)]) / (knots[:, d:-1] - knots[:, :-(d + 1)])
        right = (knots[:, d + 1:] - x) / (knots[:, d + 1:] - knots[:, 1:-d])
        basis = left * basis[..., :-1] + right * basis[..., 1:]
    return basis


class KANLayer(nn.Module):
    """phi(x) = w_base * silu(x) + sum_m c_m B_m(x) on every edge, summed per output."""

    def __init__(self, inputs, outputs, grid=5, order=3, low=-1.0, high=1.0, extend=True):
        super().__init__()
        self.order = order
        knots = knot_vector(low, high, grid, order, extend)
        self.register_buffer("knots", knots.repeat(inputs, 1))
        count = knots.numel() - order - 1
        self.base_weight = nn.Parameter(torch.empty(outputs, inputs))
        nn.init.kaiming_uniform_(self.base_weight, a=5 ** 0.5)
        self.spline_weight = nn.Parameter(0.1 * torch.randn(outputs, inputs, count)
                                          / inputs ** 0.5)

    def set_range(self, low, high, grid):
        """Place each input's knots on its own [low_i, high_i] (the first layer's part of a
        grid update from samples: the knots follow where the inputs are)."""
        rows = [knot_vector(float(lo), float(hi), grid, self.order)
                for lo, hi in zip(low, high)]
        self.knots.copy_(torch.stack(rows))

    def forward(self, x):
        spline = torch.einsum("bim,oim->bo", bspline_basis(x, self.knots, self.order),
                              self.spline_weight)
        return F.linear(F.silu(x), self.base_weight) + spline


def r_squared(prediction, target):
    return float(1 - ((prediction - target) ** 2).mean() / target.var(unbiased=False))


def held_out_r2(model, x, y):
    model.eval()
    with torch.no_grad():
        score = r_squared(model(x).squeeze(-1), y)
    model.train()
    return score


def split(x, y, held=500):
    """The first ``held`` rows held out, the rest for training."""
    return x[held:], y[held:], x[:held], y[:held]


def uniform_inputs(rows, ranges, seed=0):
    """(rows, len(ranges)) float32 inputs, column j uniform on [-ranges[j], ranges[j]]."""
    rng = np.random.default_rng(seed)
    bound = np.asarray(ranges, dtype=np.float64)
    return torch.from_numpy(rng.uniform(-bound, bound, size=(rows, len(bound)))
                            .astype(np.float32))
