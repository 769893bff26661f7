"""An intelligibility-style loss (STOI) compares short segments of the estimate and the
clean signal after normalising each segment by its norm, written
``seg / (seg.pow(2).sum().sqrt() + eps)``: the eps is added after the square root. A
segment of the estimate that is exactly 0 (silence: a mask times a silent input) has a
finite forward (0 / eps), but the derivative of sqrt at 0 is infinite, 0 x inf is NaN,
and through the mask's product that NaN reaches every weight.

Reported: "Fixing EPS application when applying sqrt" -
https://github.com/mpariente/pytorch_stoi/pull/14 (merged; "some NaN values were
appearing", "the sqrt operation since the gradient will lead to a singularity", "An EPS is
applied in the current implementation but the order of the operations can allow for
exploding gradients"; the fix: "Sum EPS just before applying sqrt"). Here a masking model
restores 8x8 digits seen through a fixed uneven gain per pixel (a distortion that keeps
silence silent): it predicts a gain per pixel, the estimate is gain x input, and the loss is one
minus the mean similarity of the normalised image columns (the segments); the blank columns
at the digits' left and right edges are the silent segments. Fix: ``(seg.pow(2).sum() + eps).sqrt()``.

Measured (300 steps): the bug's gradients are NaN at step 0, its loss NaN from step 1 on;
the fixed twin's loss falls from 0.318 to 0.263 over its last 50 steps (0.26 of it is the
blank columns, whose similarity is 0 whatever the model does).
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "Fixing EPS application when applying sqrt"
LINK = "https://github.com/mpariente/pytorch_stoi/pull/14"
EXPECTED = ("NAN_BORN_IN_BACKWARD",)
STEPS = 300
EPS = 1e-8


class Masker(nn.Module):
    """A gain in (0, 2) per pixel, applied to the distorted input."""

    def __init__(self):
        super().__init__()
        self.gains = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 64))

    def forward(self, distorted):
        return 2 * torch.sigmoid(self.gains(distorted)) * distorted


def normalised_segments(images, fixed):
    """Each image's columns, (B, 8, 8) with a column per row, scaled to norm 1."""
    segments = images.view(-1, 8, 8).transpose(1, 2)
    energy = segments.pow(2).sum(2, keepdim=True)
    if fixed:
        return segments / (energy + EPS).sqrt()
    return segments / (energy.sqrt() + EPS)                # BUG: sqrt at 0, eps after it


def segment_loss(fixed):
    def loss(estimate, clean):
        similarity = (normalised_segments(estimate, fixed) *
                      normalised_segments(clean, fixed)).sum(2)
        return 1 - similarity.mean()
    return loss


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, _ = classification()
    model = Masker()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    response = 0.1 + 1.9 * torch.rand(64, generator=torch.Generator().manual_seed(1))
    distorted = x * response
    return train_watched(model, optimizer, segment_loss(fixed),
                         ((d, c) for d, c in batches(distorted, x, steps)), **watch)
