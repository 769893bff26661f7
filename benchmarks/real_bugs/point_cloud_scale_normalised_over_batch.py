"""Point clouds normalised to a common size with ONE scale computed over the whole batch
(the mean distance to the centre of every point of every cloud) instead of one scale per
cloud: each cloud keeps its own arbitrary size relative to its batch mates, and the scale a
cloud is divided by depends on which other clouds share its batch.

Reported: "About normalization of point cloud" -
https://github.com/facebookresearch/fast3r/issues/72 ("Why the mean scale of point cloud is
calculated among not only views but also batches?"; the authors: "Yes! This was indeed a
bug ... It didn't cause problem ... because we were using batch_size=1 for training. But it
would be a problem is batch size is greater than 1", fixed). Here a PointNet classifies
digits drawn as clouds of 32 pixel positions, each cloud scaled by a random factor of 1/8
to 8 and shifted, centred per cloud, then divided by the batch-wide mean radius. Fix:
the mean radius of each cloud on its own.

Measured (300 steps, accuracy on 256 held-out clouds normalised as one batch): 0.32
against 0.47 for the fixed twin.
"""
import torch
from torch import nn
from torch.nn import functional as F

from benchmarks.real_bugs._common import train_watched
from benchmarks.real_bugs._point_clouds import cloud_batches, digit_points

TITLE = "About normalization of point cloud"
LINK = "https://github.com/facebookresearch/fast3r/issues/72"
EXPECTED = ("BATCH_MIXING",)
STEPS = 300
POINTS = 32
BATCH = 32
HELD_OUT = 256


def scaled_digit_clouds(generator):
    """Each digit as POINTS (column, row) pixel positions drawn with the pixel's ink as
    weight, jittered, then scaled by 1/8..8 and shifted: x (N, POINTS, 2), y (N,)."""
    coords, labels = digit_points(generator, POINTS, centre=0.5)
    scale = 8 ** (2 * torch.rand(len(coords), 1, 1, generator=generator) - 1)
    shift = torch.randn(len(coords), 1, 2, generator=generator)
    return coords * scale + shift, labels


def normalise(clouds, fixed):
    """Centre each cloud and divide by its mean radius (fixed) or the batch's (bug)."""
    centred = clouds - clouds.mean(dim=1, keepdim=True)
    radius = centred.norm(dim=2)
    if fixed:
        return centred / radius.mean(dim=1)[:, None, None]
    return centred / radius.mean()                         # BUG: one scale for the batch


class PointNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.points = nn.Sequential(nn.Linear(2, 64), nn.ReLU(), nn.Linear(64, 128), nn.ReLU())
        self.head = nn.Sequential(nn.Linear(128, 64), nn.ReLU(), nn.Linear(64, 10))

    def forward(self, x):                                   # x (clouds, points, 2)
        return self.head(self.points(x).max(dim=1)[0])


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(0)
    x, y = scaled_digit_clouds(generator)
    train = len(x) - HELD_OUT
    model = PointNet()
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    batches = cloud_batches(x, y, train, steps, BATCH, generator,
                            prepare=lambda clouds: normalise(clouds, fixed))
    mon = train_watched(model, optimizer, F.cross_entropy, batches, **watch)
    model.eval()
    with torch.no_grad():
        predicted = model(normalise(x[train:], fixed)).argmax(1)
    mon.accuracy = (predicted == y[train:]).float().mean().item()
    return mon
