"""Pieces batch 197's keypoint cases share: a spatial soft-argmax, keypoint errors, and a
one-keypoint "marker" picture (an arrow whose tip is the keypoint) placed anywhere in the
frame. The face and upper-body pictures, heatmap targets and networks come from
``benchmarks/real_bugs/_keypoints.py``."""
import math

import numpy as np
import torch
from torch.nn import functional as F

from benchmarks.real_bugs._keypoints import SIZE, _draw


def pixel_grid(size=SIZE):
    return torch.arange(size, dtype=torch.float32)


def soft_argmax(scores, temperature=1.0):
    """(N, K, H, W) scores -> (N, K, 2) pixel (x, y): the expectation of each map's
    softmax(temperature * scores) over the pixel grid."""
    n, k, h, w = scores.shape
    p = F.softmax(temperature * scores.flatten(2), dim=-1).view(n, k, h, w)
    x = (p.sum(2) * pixel_grid(w)).sum(-1)
    y = (p.sum(3) * pixel_grid(h)).sum(-1)
    return torch.stack([x, y], -1)


def mean_error(found, true):
    """Mean Euclidean keypoint error in pixels."""
    return (found - true).norm(dim=-1).mean().item()


def pck(found, true, pixels=2.0):
    return ((found - true).norm(dim=-1) <= pixels).float().mean().item()


def markers(n, seed):
    """(images (n, 1, SIZE, SIZE), tips (n, 1, 2) in pixels): an arrow of four blobs whose
    tip (the brightest blob) is anywhere in the frame, pointing any way; pixel noise."""
    rng = np.random.default_rng(seed)
    tip = rng.uniform(2.0, SIZE - 3.0, (n, 2))
    angle = rng.uniform(0, 2 * math.pi, n)
    direction = np.stack([np.cos(angle), np.sin(angle)], -1)
    side = np.stack([-direction[:, 1], direction[:, 0]], -1)
    body = [tip - 2.0 * direction, tip - 4.0 * direction,
            tip - 1.8 * direction + 1.6 * side]
    points = np.stack([tip] + body, 1)
    images = _draw(points, sigma=0.8, weights=np.array([1.0, 0.6, 0.6, 0.6]))
    images = images + 0.05 * torch.from_numpy(rng.standard_normal(images.shape)).float()
    return images, torch.from_numpy(tip[:, None]).float()
