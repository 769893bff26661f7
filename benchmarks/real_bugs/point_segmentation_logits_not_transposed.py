"""A point-cloud segmentation network whose per-point scores come out as (clouds, parts,
points) - the layout of a Conv1d head - and are flattened with ``reshape(-1, parts)``
without first moving the part axis last: each row of the flattened scores holds PARTS
neighbouring points of one part's score map, not the part scores of one point, so the
cross-entropy compares the wrong numbers with the per-point labels.

Reported: "Transpose for part segmentation" - https://github.com/FlyingGiraffe/vnn/issues/8
(the PointNet head's (batch, parts, points) output is transposed to (batch, points, parts)
before the loss, the DGCNN head's is not - "Is there then not a mismatch with ground truth
segmentation labels"; the author: "This is indeed a bug", fixed). Here a small PointNet-style
segmenter (shared per-point Conv1d layers, a max-pooled global feature concatenated back to
each point) labels each point of a digit drawn as a cloud of 32 pixel positions with the
digit and whether the point lies in the upper or lower half (20 parts). Fix: transpose
the scores to (clouds, points, parts) before flattening.

Measured (300 steps, per-point accuracy on 256 held-out clouds): 0.05 against 0.44 for the
fixed twin (chance 0.05); as scored, the bug run is named CLASS_AXIS_SCRAMBLED.
"""
import torch
from torch import nn
from torch.nn import functional as F

from benchmarks.real_bugs._common import train_watched
from benchmarks.real_bugs._point_clouds import cloud_batches, digit_points

TITLE = "Transpose for part segmentation"
LINK = "https://github.com/FlyingGiraffe/vnn/issues/8"
EXPECTED = ("CLASS_AXIS_SCRAMBLED",)
STEPS = 300
POINTS = 32
PARTS = 20
BATCH = 32
HELD_OUT = 256


class PointSegmenter(nn.Module):
    def __init__(self):
        super().__init__()
        self.local = nn.Sequential(nn.Conv1d(2, 64, 1), nn.ReLU(), nn.Conv1d(64, 64, 1), nn.ReLU())
        self.glob = nn.Sequential(nn.Conv1d(64, 128, 1), nn.ReLU())
        self.head = nn.Sequential(nn.Conv1d(192, 64, 1), nn.ReLU(), nn.Conv1d(64, PARTS, 1))

    def forward(self, x):                                   # x (clouds, 2, points)
        local = self.local(x)
        pooled = self.glob(local).max(dim=2, keepdim=True)[0].expand(-1, -1, x.shape[2])
        return self.head(torch.cat([local, pooled], 1))     # (clouds, parts, points)


def part_labels(x, y):
    """(clouds, points): the digit, plus 10 for points in the lower half."""
    return y[:, None] + 10 * (x[:, 1] > 0.5).long()


def flat_scores(scores, fixed):
    if fixed:
        return scores.transpose(1, 2).reshape(-1, PARTS)
    return scores.reshape(-1, PARTS)                        # BUG: parts axis not moved last


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(0)
    x, y = digit_points(generator, POINTS, axis=1)   # channels first
    labels = part_labels(x, y)
    train = len(x) - HELD_OUT
    model = PointSegmenter()
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    mon = train_watched(model, optimizer,
                        lambda scores, parts: F.cross_entropy(flat_scores(scores, fixed),
                                                              parts.reshape(-1)),
                        cloud_batches(x, labels, train, steps, BATCH, generator), **watch)
    model.eval()
    with torch.no_grad():
        predicted = flat_scores(model(x[train:]), fixed).argmax(1)
    mon.accuracy = (predicted == labels[train:].reshape(-1)).float().mean().item()
    return mon
