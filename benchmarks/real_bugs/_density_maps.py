"""Small synthetic crowd pictures for the crowd-counting / density-map cases (CPU-sized).

``crowds(n, seed)`` draws ``n`` single-channel SIZE x SIZE pictures with 0..MAX_HEADS
"heads" (bright round blobs at random places, pixel noise added) and returns the images,
the head positions and the true counts. ``density`` turns head positions into the usual
ground-truth density map: one Gaussian per head, each normalised to sum to one over the
picture (so the map sums to the head count) unless ``normalise=False`` (a peak-1 Gaussian).
With ``perspective=True`` the heads of one picture share a size drawn per picture (near /
far cameras), and the density kernel's sigma follows that size, as geometry-adaptive
kernels do. ``CountNet`` is a small fully convolutional density regressor whose map is
``SIZE / stride`` pixels wide; ``sum_pool`` is the count-preserving way to bring a
density map to that resolution; ``count_mae`` is the held-out metric (|sum of the
predicted map - true count|, averaged over pictures).
"""
import numpy as np
import torch
from torch import nn
import torch.nn.functional as F

from benchmarks.real_bugs._common import index_batches  # noqa: F401  (cases import it here)

SIZE = 32
MAX_HEADS = 20


def crowds(n, seed, perspective=False):
    """(images (n, 1, SIZE, SIZE), points list of (k, 2) arrays, counts (n,), sigmas (n,))."""
    rng = np.random.default_rng(seed)
    counts = rng.integers(0, MAX_HEADS + 1, n)
    sigmas = rng.uniform(0.8, 2.4, n) if perspective else np.full(n, 1.2)
    grid = np.arange(SIZE)
    images = np.zeros((n, SIZE, SIZE))
    points = []
    for i in range(n):
        p = rng.uniform(1, SIZE - 2, (counts[i], 2))
        points.append(p)
        for x, y in p:
            blob = np.exp(-((grid[None, :] - x) ** 2 + (grid[:, None] - y) ** 2)
                          / (2 * (0.8 * sigmas[i]) ** 2))
            images[i] = np.maximum(images[i], blob)
    images = images + 0.1 * rng.standard_normal(images.shape)
    return (torch.from_numpy(images).float()[:, None], points,
            torch.from_numpy(counts).float(), sigmas)


def density(points, sigmas, normalise=True, scale=1.0):
    """(n, 1, SIZE, SIZE) ground-truth density maps, each head a Gaussian of its picture's
    sigma, truncated at 3 sigma; normalised to unit sum per head unless ``normalise=False``."""
    grid = np.arange(SIZE)
    maps = np.zeros((len(points), SIZE, SIZE))
    for i, (p, s) in enumerate(zip(points, sigmas)):
        for x, y in p:
            d2 = (grid[None, :] - x) ** 2 + (grid[:, None] - y) ** 2
            k = np.exp(-d2 / (2 * s ** 2)) * (d2 <= (3 * s) ** 2)
            maps[i] += k / k.sum() if normalise else k
    return torch.from_numpy(maps * scale).float()[:, None]


def sum_pool(maps, stride):
    """Count-preserving downsampling: each output pixel holds the sum of its block."""
    return F.avg_pool2d(maps, stride) * stride ** 2


class CountNet(nn.Module):
    """conv-relu stack with ``log2(stride)`` 2x2 max pools, then a 1x1 density head."""

    def __init__(self, stride=4, width=16, out_relu=False):
        super().__init__()
        layers, c = [nn.Conv2d(1, width, 3, padding=1), nn.ReLU()], width
        for _ in range(int(np.log2(stride))):
            layers += [nn.Conv2d(c, 2 * width, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2)]
            c = 2 * width
        layers += [nn.Conv2d(c, c, 3, padding=1), nn.ReLU(), nn.Conv2d(c, 1, 1)]
        if out_relu:
            layers.append(nn.ReLU())
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x)


@torch.no_grad()
def count_mae(model, images, counts, divide=1.0):
    """Mean |predicted count - true count|, the predicted count being the map's sum
    (divided by ``divide`` where the targets were multiplied by a constant)."""
    was = model.training
    model.eval()
    pred = model(images).sum((1, 2, 3)) / divide
    model.train(was)
    return float((pred - counts).abs().mean())
