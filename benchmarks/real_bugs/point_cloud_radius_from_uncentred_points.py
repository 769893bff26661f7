"""Point clouds normalised into the unit ball with the radius measured on the points
BEFORE centring: the cloud is centred, but divided by the largest distance of its
original points from the origin, so a cloud lying far from the origin is shrunk by its
offset, not its size - the normalised clouds come out in sizes that follow where they
happened to be, and the shape the model must read is squashed to a dot for distant ones.

Reported: "code of normalization of point cloud seems different with paper" -
https://github.com/sergeyprokudin/bps/issues/4 (``x_max = np.max(np.sqrt(np.sum(np.square(x),
axis=1)))`` - "should we change the code like this? ... np.square(x_norm)"; the author:
"Indeed, this is a bug. Should be fixed now"). Here a PointNet classifies digits drawn as
clouds of 32 pixel positions, each scaled by 1/2..2 and placed at a random distance of 0 to
6 from the origin, normalised per cloud. Fix: the radius of the centred points.

Measured (300 steps, accuracy on 256 held-out clouds): 0.18 against 0.45 for the fixed
twin.
"""
import torch
from torch import nn
from torch.nn import functional as F

from benchmarks.real_bugs._common import train_watched
from benchmarks.real_bugs._point_clouds import cloud_batches, digit_points

TITLE = "code of normalization of point cloud seems different with paper"
LINK = "https://github.com/sergeyprokudin/bps/issues/4"
EXPECTED = ("CLOUD_RADIUS_FROM_UNCENTRED_POINTS",)
STEPS = 300
POINTS = 32
BATCH = 32
HELD_OUT = 256


def placed_digit_clouds(generator):
    """Each digit as POINTS (column, row) pixel positions drawn with the pixel's ink as
    weight, jittered, scaled by 1/2..2 and moved 0..6 from the origin: x (N, POINTS, 2)."""
    coords, labels = digit_points(generator, POINTS, centre=0.5)
    scale = 2 ** (2 * torch.rand(len(coords), 1, 1, generator=generator) - 1)
    direction = F.normalize(torch.randn(len(coords), 1, 2, generator=generator), dim=2)
    distance = 6 * torch.rand(len(coords), 1, 1, generator=generator)
    return coords * scale + direction * distance, labels


def normalise(clouds, fixed):
    """Centre each cloud and divide by its largest radius: of the centred points (fixed)
    or of the points as given (bug)."""
    centred = clouds - clouds.mean(dim=1, keepdim=True)
    measured = centred if fixed else clouds               # BUG when not fixed: uncentred
    return centred / measured.norm(dim=2).max(dim=1)[0][:, None, None]


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
    x, y = placed_digit_clouds(generator)
    x = normalise(x, fixed)
    train = len(x) - HELD_OUT
    model = PointNet()
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    mon = train_watched(model, optimizer, F.cross_entropy,
                        cloud_batches(x, y, train, steps, BATCH, generator), **watch)
    model.eval()
    with torch.no_grad():
        predicted = model(x[train:]).argmax(1)
    mon.accuracy = (predicted == y[train:]).float().mean().item()
    return mon
