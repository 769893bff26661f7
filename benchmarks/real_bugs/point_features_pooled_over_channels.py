"""A point-cloud encoder (ResNet blocks on per-point features, each block concatenating a
max-pooled feature to every point) whose pooling runs over the FEATURE axis: on per-point
features of shape (clouds, points, features) ``net.max(dim=2, keepdim=True)`` gives each
point the largest of its own features, where the pooling should take each feature's
largest value over the cloud's POINTS (``dim=1``). No point ever hears about the others:
the "global" context is one number computed from the point itself.

Reported: "Pooling in ResnetECPos" - https://github.com/facebookresearch/neuromorph/issues/2
("the pooling dimension should be 0 (the dimension of points) rather than 1 (the dimension
of features)", on ``pooled = self.pool(net, dim=1, keepdim=True).expand(net.size())``).
Here two such blocks label each point of a digit drawn as a cloud of 32 pixel positions
with the cloud's digit (a point alone cannot tell it). Fix: pool over the points axis.

Measured (300 steps, per-point accuracy on 256 held-out clouds): 0.13 against 0.31 for
the fixed twin (chance 0.10).
"""
import torch
from torch import nn
from torch.nn import functional as F

from benchmarks.real_bugs._common import train_watched
from benchmarks.real_bugs._point_clouds import cloud_batches, digit_points

TITLE = "Pooling in ResnetECPos"
LINK = "https://github.com/facebookresearch/neuromorph/issues/2"
EXPECTED = ("POOLED_OVER_FEATURES",)
STEPS = 300
POINTS = 32
HIDDEN = 64
BATCH = 32
HELD_OUT = 256


class PooledBlock(nn.Module):
    """A residual per-point layer fed with each point's features and a pooled feature."""

    def __init__(self, fixed):
        super().__init__()
        self.fixed = fixed
        self.layer = nn.Linear(2 * HIDDEN, HIDDEN)

    def forward(self, net):                                 # net (clouds, points, features)
        axis = 1 if self.fixed else 2                       # BUG when not fixed: dim=2
        pooled = net.max(dim=axis, keepdim=True)[0].expand(net.size())
        return net + F.relu(self.layer(torch.cat([net, pooled], 2)))


class PointLabeller(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.embed = nn.Linear(2, HIDDEN)
        self.blocks = nn.Sequential(PooledBlock(fixed), PooledBlock(fixed))
        self.head = nn.Linear(HIDDEN, 10)

    def forward(self, x):
        return self.head(self.blocks(F.relu(self.embed(x))))   # (clouds, points, 10)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(0)
    x, y = digit_points(generator, POINTS)
    labels = y[:, None].expand(-1, POINTS)
    train = len(x) - HELD_OUT
    model = PointLabeller(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    mon = train_watched(model, optimizer,
                        lambda scores, parts: F.cross_entropy(scores.reshape(-1, 10),
                                                              parts.reshape(-1)),
                        cloud_batches(x, labels, train, steps, BATCH, generator), **watch)
    model.eval()
    with torch.no_grad():
        predicted = model(x[train:]).argmax(2)
    mon.accuracy = (predicted == labels[train:]).float().mean().item()
    return mon
