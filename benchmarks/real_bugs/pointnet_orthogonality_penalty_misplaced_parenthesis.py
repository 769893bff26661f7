"""PointNet's feature-transform regulariser with a bracket in the wrong place:
``norm(bmm(A, A.T - I))`` - the norm of A(A^T - I) - where the paper's penalty is
``norm(bmm(A, A.T) - I)``, the distance of A A^T from the identity. The misplaced penalty
is smallest at A = 0, not at an orthogonal A: instead of keeping the learned feature
transform close to a rotation (so it loses no information), it pulls the transform
towards zero and collapses the per-point features it is applied to.

Reported: "def feature_transform_reguliarzer(trans):" -
https://github.com/fxia22/pointnet.pytorch/issues/40 ("your loss implemention is like this
||(A*(A_T-I))||, but the loss should be like ||(I-A*A_T)||"; the author: "You are right",
fixed, and "I also updated the benchmarking results"). Here a PointNet with a T-net
predicting a 32x32 transform of the per-point features classifies digits drawn as clouds of
32 pixel positions; the penalty's weight is the report's 0.001. Fix: the bracket closed
after ``transpose``, the identity subtracted from the product.

Measured (300 steps, accuracy on 256 held-out clouds): 0.42 against 0.45 for the
fixed twin - a small harm at the report's weight of 0.001 (the report's author re-ran
his benchmark after the fix; no number there to compare with).
"""
import torch
from torch import nn
from torch.nn import functional as F

from benchmarks.real_bugs._common import train_watched
from benchmarks.real_bugs._point_clouds import cloud_batches, digit_points

TITLE = "def feature_transform_reguliarzer(trans):"
LINK = "https://github.com/fxia22/pointnet.pytorch/issues/40"
EXPECTED = ("ORTHOGONALITY_PENALTY_MINIMISED_AT_ZERO",)
STEPS = 300
POINTS = 32
FEATURES = 32
BATCH = 32
HELD_OUT = 256
PENALTY_WEIGHT = 0.001


class FeatureTNet(nn.Module):
    """Predicts a FEATURES x FEATURES transform from the cloud, starting at the identity."""

    def __init__(self):
        super().__init__()
        self.points = nn.Sequential(nn.Linear(FEATURES, 64), nn.ReLU())
        self.out = nn.Linear(64, FEATURES * FEATURES)

    def forward(self, features):
        pooled = self.points(features).max(dim=1)[0]
        return self.out(pooled).view(-1, FEATURES, FEATURES) + torch.eye(FEATURES)


class PointNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Sequential(nn.Linear(2, FEATURES), nn.ReLU())
        self.tnet = FeatureTNet()
        self.points = nn.Sequential(nn.Linear(FEATURES, 128), nn.ReLU())
        self.head = nn.Sequential(nn.Linear(128, 64), nn.ReLU(), nn.Linear(64, 10))

    def forward(self, x):                                   # x (clouds, points, 2)
        features = self.embed(x)
        transform = self.tnet(features)
        features = torch.bmm(features, transform)
        return self.head(self.points(features).max(dim=1)[0]), transform


def orthogonality_penalty(transform, fixed):
    eye = torch.eye(FEATURES)[None]
    if fixed:
        gap = torch.bmm(transform, transform.transpose(2, 1)) - eye
    else:
        gap = torch.bmm(transform, transform.transpose(2, 1) - eye)   # BUG: A (A^T - I)
    return torch.norm(gap, dim=(1, 2)).mean()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(0)
    x, y = digit_points(generator, POINTS)
    train = len(x) - HELD_OUT
    model = PointNet()
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)

    def loss_fn(output, labels):
        scores, transform = output
        return (F.cross_entropy(scores, labels)
                + PENALTY_WEIGHT * orthogonality_penalty(transform, fixed))
    mon = train_watched(model, optimizer, loss_fn,
                        cloud_batches(x, y, train, steps, BATCH, generator), **watch)
    model.eval()
    with torch.no_grad():
        predicted = model(x[train:])[0].argmax(1)
    mon.accuracy = (predicted == y[train:]).float().mean().item()
    return mon
