"""What the coordinate-network cases share (batch 113): a small image to fit as a function of
its pixel coordinates, split into pixels the network trains on and pixels it must
interpolate, a SIREN layer, and the PSNR the cases report. Each case keeps its own network
and its bug.

The image: sixteen of the 8x8 digits tiled 4 x 4 (a 32 x 32 mosaic) and upsampled
bilinearly to 64 x 64, so strokes are a few pixels wide and a pixel left out of training
can be told from its neighbours."""
import math

import torch
from torch import nn
from torch.nn import functional as F

from benchmarks.real_bugs._common import classification

SIDE = 64
HELD_OUT_SHARE = 0.25


def digit_mosaic():
    """(coordinates (SIDE * SIDE, 2) in [-1, 1], grey levels (SIDE * SIDE, 1) in [-1, 1])."""
    x, _ = classification()
    tiles = x[:16].reshape(4, 4, 8, 8).permute(0, 2, 1, 3).reshape(1, 1, 32, 32)
    image = F.interpolate(tiles, size=(SIDE, SIDE), mode="bilinear", align_corners=True)
    axis = torch.linspace(-1, 1, SIDE)
    grid = torch.stack(torch.meshgrid(axis, axis, indexing="ij"), -1).reshape(-1, 2)
    return grid, image.reshape(-1, 1) * 2 - 1


def split(n, seed=0):
    """(training indices, held-out indices): a fixed random quarter of the pixels is held out."""
    order = torch.randperm(n, generator=torch.Generator().manual_seed(seed))
    cut = int(n * HELD_OUT_SHARE)
    return order[cut:], order[:cut]


def psnr(prediction, target):
    """Peak signal-to-noise ratio in dB for values in [-1, 1] (peak-to-peak 2)."""
    mse = float(((prediction - target) ** 2).mean())
    return round(10 * math.log10(4 / mse), 2)


class SineLayer(nn.Module):
    """sin(omega * (W x + b)) with SIREN's initialisation: the first layer's weights uniform in
    +-1/fan_in, later layers' in +-sqrt(6/fan_in)/omega (Sitzmann et al. 2020)."""

    def __init__(self, fan_in, fan_out, omega=30.0, first=False):
        super().__init__()
        self.omega = omega
        self.linear = nn.Linear(fan_in, fan_out)
        bound = 1 / fan_in if first else math.sqrt(6 / fan_in) / omega
        with torch.no_grad():
            self.linear.weight.uniform_(-bound, bound)

    def forward(self, x):
        return torch.sin(self.omega * self.linear(x))


def siren(hidden=64, layers=3, omega=30.0):
    """A SIREN of ``layers`` sine layers (the first with the first layer's initialisation) and
    a linear read-out initialised like a hidden layer."""
    blocks = [SineLayer(2, hidden, omega, first=True)]
    blocks += [SineLayer(hidden, hidden, omega) for _ in range(layers - 1)]
    readout = nn.Linear(hidden, 1)
    with torch.no_grad():
        bound = math.sqrt(6 / hidden) / omega
        readout.weight.uniform_(-bound, bound)
    return nn.Sequential(*blocks, readout)


def fit_image(model, steps, lr, coordinates=None, **watch):
    """Fit the mosaic's training pixels full-batch with Adam under ``nd.watch`` (the loop of
    the SIREN notebook: one batch holding every training pixel, mean squared error); the
    monitor comes back with the PSNR of the training and the held-out pixels in ``extra``.
    ``coordinates``: the network's inputs (the [-1, 1] grid when None), one row a pixel."""
    import nndebug as nd
    grid, image = digit_mosaic()
    inputs = grid if coordinates is None else coordinates
    train, held_out = split(len(grid))
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            optimizer.zero_grad()
            loss = F.mse_loss(model(inputs[train]), image[train])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        prediction = model(inputs)
    mon.extra = {"train_psnr": psnr(prediction[train], image[train]),
                 "held_out_psnr": psnr(prediction[held_out], image[held_out])}
    return mon
