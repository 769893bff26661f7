"""A Fourier-feature network whose Gaussian frequency matrix B is drawn inside ``forward``:
every call maps the coordinates through a fresh random B, [cos(2 pi x B), sin(2 pi x B)],
before the ReLU MLP. The features a pixel gets change at every step, so what the MLP learns
about feature j at one step says nothing about the next step's feature j; it can only learn
the image's mean, and at evaluation the model answers with yet another draw. The loss
falls to the variance of the image and stays there; nothing crashes.

Reported: "Some Questions" - https://github.com/tancik/fourier-feature-networks/issues/22
(on the paper's Gaussian mapping: "I find that the gaussian basis must be fixed instead of
random sampling in the training process"). Here the paper's image-regression setting: the
mapping with 64 frequencies of scale 3 on [0, 1] coordinates (the paper's scales, 10 and
up, are for images eight times wider), a 3-layer ReLU MLP of width 128, full-batch Adam
1e-3, on a 64 x 64 image (sixteen digits tiled and upsampled),
a random quarter of the pixels held out.
Fix: draw B once, in ``__init__``, and keep it as a buffer (``register_buffer``): the same
fixed frequencies at every call.

Measured (300 steps, seed 0): PSNR on the training pixels 9.8 dB for the bug (the image's
mean), 40.5 dB for the twin; on the held-out pixels 9.7 dB against 26.7 dB.
"""
import math

import torch
from torch import nn

from benchmarks.real_bugs._coordinate_fields import fit_image

TITLE = "Some Questions"
LINK = "https://github.com/tancik/fourier-feature-networks/issues/22"
EXPECTED = ("RANDOM_FEATURES_REDRAWN_EVERY_CALL",)
STEPS = 300
LR = 1e-3
FREQUENCIES = 64
SCALE = 3.0
WIDTH = 128


class FixedFourierFeatures(nn.Module):
    """[cos(2 pi x B), sin(2 pi x B)] with B drawn once and kept as a buffer."""

    def __init__(self):
        super().__init__()
        self.register_buffer("B", torch.randn(2, FREQUENCIES) * SCALE)

    def forward(self, unit):
        projected = 2 * math.pi * unit @ self.B
        return torch.cat([torch.cos(projected), torch.sin(projected)], -1)


class RedrawnFourierFeatures(nn.Module):
    """The same mapping with B drawn inside forward."""

    def forward(self, unit):
        B = torch.randn(2, FREQUENCIES) * SCALE                 # BUG: a new B every call
        projected = 2 * math.pi * unit @ B
        return torch.cat([torch.cos(projected), torch.sin(projected)], -1)


class FourierFeatureNet(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.features = FixedFourierFeatures() if fixed else RedrawnFourierFeatures()
        self.mlp = nn.Sequential(nn.Linear(2 * FREQUENCIES, WIDTH), nn.ReLU(),
                                 nn.Linear(WIDTH, WIDTH), nn.ReLU(), nn.Linear(WIDTH, 1))

    def forward(self, coordinates):
        unit = (coordinates + 1) / 2                            # [0, 1], as in the paper
        return self.mlp(self.features(unit))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    return fit_image(FourierFeatureNet(fixed), steps, LR, **watch)
