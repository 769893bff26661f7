"""Shared pieces of real-bug batch 221 (weather and climate models on gridded data): a small
12 x 24 latitude-longitude grid, smooth random fields drawn from torch's global generator, a
toy "atmosphere" step (zonal advection whose direction depends on the latitude band plus a
rotation between two variables), cos(latitude) area weights, a periodic-padded CNN and the
area-weighted held-out RMSE. Each case keeps its bug in its own module."""
import math

import torch
from torch import nn
from torch.nn import functional as F

NLAT, NLON = 12, 24
LAT = torch.linspace(-82.5, 82.5, NLAT)                 # cell centres, degrees
COSLAT = torch.cos(LAT * math.pi / 180)
AREA = (COSLAT / COSLAT.mean()).view(1, 1, NLAT, 1)     # cos-latitude weights, mean 1
TROPICS = (LAT.abs() < 45).view(1, 1, NLAT, 1)


def smooth(x, passes=2):
    """Box-blurred (periodic) so that a field has structure a 3x3 kernel can follow."""
    for _ in range(passes):
        x = F.avg_pool2d(F.pad(x, (1, 1, 1, 1), mode="circular"), 3, stride=1)
    return x


def states(n, channels=2):
    """(n, channels, NLAT, NLON) smooth random fields, each channel standardised."""
    x = smooth(torch.randn(n, channels, NLAT, NLON))
    return (x - x.mean((0, 2, 3), keepdim=True)) / x.std((0, 2, 3), keepdim=True)


def advance(x, banded=True):
    """One step of the toy atmosphere (standardised units): the tropics drift east by one
    cell, the extratropics west (or everything east with ``banded=False``), and the first two
    variables rotate into each other."""
    east = torch.roll(x, 1, dims=3)
    moved = torch.where(TROPICS, east, torch.roll(x, -1, dims=3)) if banded else east
    out = moved.clone()
    out[:, 0] = 0.9 * moved[:, 0] + 0.4 * moved[:, 1]
    out[:, 1] = 0.9 * moved[:, 1] - 0.4 * moved[:, 0]
    return out


def cnn(c_in, c_out, width=16):
    return nn.Sequential(
        nn.Conv2d(c_in, width, 3, padding=1, padding_mode="circular"), nn.ReLU(),
        nn.Conv2d(width, width, 3, padding=1, padding_mode="circular"), nn.ReLU(),
        nn.Conv2d(width, c_out, 3, padding=1, padding_mode="circular"))


def weighted_rmse(pred, target):
    """Area-weighted (cos latitude) RMSE over the grid, averaged over samples and channels."""
    return float(((pred - target) ** 2 * AREA).mean().sqrt())
