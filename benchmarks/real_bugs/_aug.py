"""Shared pieces of real-bug batch 203 (data augmentation pipelines: mixup, CutMix,
RandAugment-style geometric ops): the 8x8 digits split into training and held-out images,
a small CNN, a batched rotate/translate written with ``affine_grid``, held-out sets moved
by known angles or shifts, and held-out accuracy / negative log-likelihood."""
import math

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from benchmarks.real_bugs._common import classification

HELD_OUT = 500


def split(seed=0):
    """The digits as (N, 1, 8, 8) images shuffled by ``seed``: (x_train, y_train, x_held,
    y_held), the last ``HELD_OUT`` rows held out."""
    x, y = classification(images=True)
    order = torch.from_numpy(np.random.default_rng(seed).permutation(len(x)))
    x, y = x[order], y[order]
    return x[:-HELD_OUT], y[:-HELD_OUT], x[-HELD_OUT:], y[-HELD_OUT:]


def cnn(classes=10):
    return nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(),
                         nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Linear(32 * 16, classes))


def affine(x, degrees=None, shift_px=None):
    """Rotate each image of ``x`` (B, 1, H, W) by ``degrees`` (B,) about its centre and move
    it by ``shift_px`` (B, 2) pixels (x then y), bilinear, zeros outside (the digits'
    background)."""
    b, _, h, w = x.shape
    degrees = torch.zeros(b) if degrees is None else degrees
    shift_px = torch.zeros(b, 2) if shift_px is None else shift_px
    theta = degrees * math.pi / 180
    cos, sin = torch.cos(theta), torch.sin(theta)
    # affine_grid maps output coordinates to input ones in [-1, 1]: the inverse transform
    matrix = torch.zeros(b, 2, 3)
    matrix[:, 0, 0], matrix[:, 0, 1] = cos, sin
    matrix[:, 1, 0], matrix[:, 1, 1] = -sin, cos
    matrix[:, 0, 2] = -shift_px[:, 0] * 2 / w
    matrix[:, 1, 2] = -shift_px[:, 1] * 2 / h
    grid = F.affine_grid(matrix, list(x.shape), align_corners=False)
    return F.grid_sample(x, grid, align_corners=False, padding_mode="zeros")


def rotated(x, degrees):
    """Every image of ``x`` rotated by the same ``degrees``."""
    return affine(x, degrees=torch.full((len(x),), float(degrees)))


def shifted(x, max_px, seed=0):
    """Every image of ``x`` moved by a whole-pixel shift drawn in [-max_px, max_px] on each
    axis, from a private generator (the same draws for the bug run and its twin)."""
    g = torch.Generator().manual_seed(12345 + seed)
    shift = torch.randint(-max_px, max_px + 1, (len(x), 2), generator=g).float()
    return affine(x, shift_px=shift)


@torch.no_grad()
def accuracy(model, x, y):
    was = model.training
    model.eval()
    value = (model(x).argmax(1) == y).float().mean().item()
    model.train(was)
    return round(value, 3)


@torch.no_grad()
def nll(model, x, y):
    was = model.training
    model.eval()
    value = F.cross_entropy(model(x), y).item()
    model.train(was)
    return round(value, 3)


@torch.no_grad()
def confidence(model, x):
    """Mean probability the model gives its predicted class."""
    was = model.training
    model.eval()
    value = model(x).softmax(1).max(1).values.mean().item()
    model.train(was)
    return round(value, 3)
