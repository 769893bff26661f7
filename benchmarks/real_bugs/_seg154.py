"""Hand-made segmentation scenes and a small U-Net for the segmentation cases of batch 154.

A scene is a noisy single-channel image holding a few rectangles of two kinds: class 1 is
bright and filled, class 2 is a bright frame (an outline, hollow inside), so telling them
apart needs the neighbourhood, not just the pixel. Pixels carry class ids (0 background);
``binary=True`` folds both kinds into one foreground class. Training scenes and held-out
scenes come from different generators (``np.random.default_rng``, which the benchmark's
seed shift moves).
"""
import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

NOISE = 0.45      # pixel noise; the shapes stay visible but single pixels are unreliable


def scenes(count, size=16, objects=(1, 3), sides=(3, 7), binary=False, seed=0):
    """(images (count, 1, size, size) float32, labels (count, size, size) int64)."""
    rng = np.random.default_rng(seed)
    labels = np.zeros((count, size, size), np.int64)
    for i in range(count):
        for _ in range(rng.integers(objects[0], objects[1] + 1)):
            h, w = rng.integers(sides[0], sides[1] + 1, 2)
            y, x = rng.integers(0, size - h + 1), rng.integers(0, size - w + 1)
            kind = 1 if binary else int(rng.integers(1, 3))
            if kind == 1:
                labels[i, y:y + h, x:x + w] = 1
            else:
                labels[i, y:y + h, x:x + w] = 2
                labels[i, y + 1:y + h - 1, x + 1:x + w - 1] = 0
    images = (labels > 0).astype(np.float32)
    images += rng.normal(0, NOISE, images.shape).astype(np.float32)
    return torch.from_numpy(images[:, None]), torch.from_numpy(labels)


def block(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(),
                         nn.Conv2d(cout, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU())


class UNet(nn.Module):
    """Two levels down, two up, skips concatenated; ``out`` channels of logits at full
    resolution (``stride=4``: the logits stay at a quarter of the input's resolution, the
    way DeepLab-style heads are trained against downsampled label maps)."""

    def __init__(self, out=3, width=12, stride=1, final=None):
        super().__init__()
        self.stride = stride
        self.enc1, self.enc2, self.mid = block(1, width), block(width, 2 * width), \
            block(2 * width, 2 * width)
        if stride == 1:
            self.dec2 = block(4 * width, width)
            self.dec1 = block(2 * width, width)
            self.head = nn.Conv2d(width, out, 1)
        else:
            self.head = nn.Conv2d(2 * width, out, 1)
        self.final = final

    def forward(self, x):
        e1 = self.enc1(x)
        e2 = self.enc2(F.max_pool2d(e1, 2))
        m = self.mid(F.max_pool2d(e2, 2))
        if self.stride == 1:
            d2 = self.dec2(torch.cat([F.interpolate(m, scale_factor=2.0), e2], 1))
            d1 = self.dec1(torch.cat([F.interpolate(d2, scale_factor=2.0), e1], 1))
            out = self.head(d1)
        else:
            out = self.head(m)
        return out if self.final is None else self.final(out)


def batches(images, labels, steps, batch_size=16, seed=0):
    from benchmarks.real_bugs._common import index_batches
    for index in index_batches(len(images), steps, batch_size, seed):
        yield images[index], labels[index]


@torch.no_grad()
def mean_iou(predicted, labels, classes):
    """Mean over the foreground classes (1..classes-1) of the IoU of the predicted ids."""
    ious = []
    for c in range(1, classes):
        p, t = predicted == c, labels == c
        union = (p | t).sum().item()
        if union:
            ious.append((p & t).sum().item() / union)
    return round(sum(ious) / len(ious), 3)
