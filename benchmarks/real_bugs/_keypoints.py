"""Small synthetic keypoint images the pose and landmark cases share (CPU-sized).

Two kinds of picture, both single-channel, SIZE x SIZE, drawn from keypoints given in
pixels as (x, y) = (column, row):
  * ``faces``: a frontal face of five landmarks (the five-point layout of face-alignment
    sets): the subject's right eye, left eye, nose tip, right and left mouth corners. The
    subject faces the camera, so their right eye is on the image's left.
  * ``figures``: an upper body facing the camera - head, right and left shoulders, right and
    left hands (arms at random angles) - drawn as blobs joined by limbs.
Each picture is randomly placed, scaled and rotated, with pixel noise. ``heatmaps`` draws
the usual Gaussian target maps; ``HeatmapNet`` is a small fully convolutional heatmap
regressor (dilated convolutions, receptive field 15 pixels); ``CoordinateNet`` regresses
coordinates directly.
"""
import math

import numpy as np
import torch
from torch import nn

from benchmarks.real_bugs._common import index_batches  # noqa: F401  (cases import it here)

SIZE = 20
FACE = np.array([[-0.5, -0.35], [0.5, -0.35], [0.0, 0.1], [-0.35, 0.5], [0.35, 0.5]])
FACE_MIRROR = [1, 0, 2, 4, 3]           # right eye <-> left eye, right <-> left mouth corner
FIGURE_MIRROR = [0, 2, 1, 4, 3]         # head; right <-> left shoulder; right <-> left hand
FIGURE_LIMBS = [(0, 1), (0, 2), (1, 2), (1, 3), (2, 4)]


def _place(points, rng, scale, centre_jitter, max_angle):
    """points (N, K, 2) in template units -> pixels: rotate, scale, move."""
    n = len(points)
    angle = rng.uniform(-max_angle, max_angle, n) * math.pi / 180
    cos, sin = np.cos(angle)[:, None], np.sin(angle)[:, None]
    x = points[..., 0] * cos - points[..., 1] * sin
    y = points[..., 0] * sin + points[..., 1] * cos
    s = rng.uniform(*scale, n)[:, None]
    centre = (SIZE - 1) / 2 + rng.uniform(-centre_jitter, centre_jitter, (n, 2))
    return np.stack([x * s + centre[:, None, 0], y * s + centre[:, None, 1]], -1)


def _draw(points, sigma, weights=None):
    """(N, P, 2) pixel points -> (N, 1, SIZE, SIZE) images: a Gaussian blob per point,
    combined by max (``weights`` scales each point's blob)."""
    grid = torch.arange(SIZE, dtype=torch.float32)
    p = torch.as_tensor(points, dtype=torch.float32)
    dx = grid[None, None, None, :] - p[..., 0, None, None]
    dy = grid[None, None, :, None] - p[..., 1, None, None]
    blobs = torch.exp(-(dx ** 2 + dy ** 2) / (2 * sigma ** 2))
    if weights is not None:
        blobs = blobs * torch.as_tensor(weights, dtype=torch.float32)[None, :, None, None]
    return blobs.amax(1, keepdim=True)


def faces(n, seed):
    """(images (n, 1, SIZE, SIZE), landmarks (n, 5, 2) in pixels)."""
    rng = np.random.default_rng(seed)
    template = FACE[None] + rng.normal(0, 0.04, (n, 5, 2))
    points = _place(template, rng, scale=(5.0, 7.5), centre_jitter=2.0, max_angle=25)
    images = _draw(points, sigma=0.9)
    images = images + 0.05 * torch.from_numpy(rng.standard_normal(images.shape)).float()
    return images, torch.from_numpy(points).float()


def figures(n, seed):
    """(images (n, 1, SIZE, SIZE), keypoints (n, 5, 2) in pixels): head, right shoulder,
    left shoulder, right hand, left hand of a figure facing the camera."""
    rng = np.random.default_rng(seed)
    right_arm = rng.uniform(math.radians(100), math.radians(260), n)    # image-left side
    left_arm = rng.uniform(math.radians(-80), math.radians(80), n)      # image-right side
    length = rng.uniform(0.6, 0.9, n)
    pts = np.zeros((n, 5, 2))
    pts[:, 0] = [0.0, -0.75]
    pts[:, 1] = [-0.45, 0.0]
    pts[:, 2] = [0.45, 0.0]
    pts[:, 3] = pts[:, 1] + np.stack([np.cos(right_arm), np.sin(right_arm)], -1) * length[:, None]
    pts[:, 4] = pts[:, 2] + np.stack([np.cos(left_arm), np.sin(left_arm)], -1) * length[:, None]
    pts[:, :, 1] += 0.1
    points = _place(pts, rng, scale=(5.0, 6.5), centre_jitter=1.5, max_angle=20)
    steps = np.linspace(0.15, 0.85, 5)
    limbs = np.concatenate([points[:, a, None] + steps[None, :, None] *
                            (points[:, b, None] - points[:, a, None])
                            for a, b in FIGURE_LIMBS], 1)
    weights = np.r_[np.ones(5), np.full(limbs.shape[1], 0.5)]
    images = _draw(np.concatenate([points, limbs], 1), sigma=0.8, weights=weights)
    images = images + 0.05 * torch.from_numpy(rng.standard_normal(images.shape)).float()
    return images, torch.from_numpy(points).float()


def heatmaps(points, sigma=1.0):
    """(N, K, 2) pixel keypoints -> (N, K, SIZE, SIZE) Gaussian targets, peak 1 at the
    keypoint: rows are y, columns are x."""
    grid = torch.arange(SIZE, dtype=torch.float32)
    dx = grid[None, None, None, :] - points[..., 0, None, None]
    dy = grid[None, None, :, None] - points[..., 1, None, None]
    return torch.exp(-(dx ** 2 + dy ** 2) / (2 * sigma ** 2))


def argmax_points(maps):
    """(N, K, H, W) heatmaps -> (N, K, 2) pixel (x, y) of each map's largest value."""
    flat = maps.flatten(2).argmax(-1)
    return torch.stack([flat % SIZE, flat // SIZE], -1).float()


def to_unit(points):
    """pixels -> normalised coordinates in [-1, 1] (the image's corners)."""
    return points / (SIZE - 1) * 2 - 1


def to_pixels(unit):
    return (unit + 1) / 2 * (SIZE - 1)


class HeatmapNet(nn.Module):
    def __init__(self, keypoints):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(),
            nn.Conv2d(16, 16, 3, padding=2, dilation=2), nn.ReLU(),
            nn.Conv2d(16, 16, 3, padding=4, dilation=4), nn.ReLU(),
            nn.Conv2d(16, keypoints, 1))

    def forward(self, x):
        return self.body(x)


class CoordinateNet(nn.Module):
    def __init__(self, keypoints):
        super().__init__()
        self.keypoints = keypoints
        self.body = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Flatten(), nn.Linear(32 * (SIZE // 4) ** 2, 128), nn.ReLU(),
            nn.Linear(128, 2 * keypoints))

    def forward(self, x):
        return self.body(x).view(-1, self.keypoints, 2)

