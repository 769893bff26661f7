"""Pieces batch 326's super-resolution and denoising cases share: the 8x8 digits as sharp
images, their x2 low-resolution copies (2x2 averaging, 4x4), the bilinear upsampling an
SRCNN-style network reads, Gaussian noise from a seeded NumPy generator, and PSNR (images in
[0, 1]). Each case keeps its own network and its own bug."""
import math

import numpy as np
import torch
from torch.nn import functional as F

from benchmarks.real_bugs._common import classification

HELD_OUT = 512


def digits():
    """Sharp training and held-out digits, (N, 1, 8, 8) in [0, 1]."""
    x, _ = classification(images=True)
    return x[:-HELD_OUT], x[-HELD_OUT:]


def downsampled(sharp):
    """The low-resolution copy: 2x2 averaging, (N, 1, 4, 4)."""
    return F.avg_pool2d(sharp, 2)


def upsampled(low):
    """x2 bilinear upsampling back to 8x8 (SRCNN's interpolated input)."""
    return F.interpolate(low, scale_factor=2, mode="bilinear", align_corners=False)


def gaussian(shape, sigma, seed):
    """Zero-mean Gaussian noise of standard deviation ``sigma`` from a seeded generator."""
    rng = np.random.default_rng(seed)
    return torch.from_numpy(rng.normal(0.0, sigma, size=tuple(shape)).astype(np.float32))


def psnr(restored, sharp):
    """Peak signal-to-noise ratio in dB over a whole set, images in [0, 1]."""
    mse = F.mse_loss(restored.clamp(0, 1), sharp).item()
    return 10 * math.log10(1.0 / mse)
