"""A CapsNet whose margin loss is a small module written as ``forward(labels, lengths)``
and called as ``loss_fn(lengths, one_hot)``: the capsule lengths take the place of the
one-hot targets and the targets the place of the lengths. What is left is linear in the
lengths - 0.405 x (1 - true class's length) + 0.81 x the other lengths - with no margin
at 0.9 and 0.1 any more: pushing every length down is nearly as cheap as raising the
right one, and the loss falls while the classifier stays poor.

Reported: "A bug in code" - https://github.com/sxhxliang/CapsNet_Mxnet/issues/3 (the
margin loss takes ``(labels, y_pred)`` but is called with the output first: "the order of
parameter is wrong"; there the loss went NaN after some batches, here the squash has its
epsilon and the run stays finite). Here the batch's shared CapsNet on the 8x8 digits
(``_capsnet333``: 72 primary capsules of 4 values, ten digit capsules of 8, 3 routing
iterations, plus the decoder's masked reconstruction), Adam 1e-3, batches of 64, 200
steps.

Fix: ``loss_fn(one_hot, lengths)``, the order the loss was written for.

Measured (held-out accuracy, 400 digits): 0.475 with the bug, 0.91 fixed; seeds + 1000:
0.42 vs 0.93.
"""
import torch
from torch import nn
from torch.nn import functional as F

from benchmarks.real_bugs._capsnet333 import (CLASSES, CapsNet, digits,
                                              reconstruction_loss, train)

TITLE = "A bug in code"
LINK = "https://github.com/sxhxliang/CapsNet_Mxnet/issues/3"
EXPECTED = ("LOSS_ARGUMENTS_SWAPPED",)
STEPS = 200


class CapsuleMarginLoss(nn.Module):
    """Eq. 4 of the paper, labels first: one-hot targets T and capsule lengths."""

    def forward(self, labels, lengths):
        present = labels * F.relu(0.9 - lengths) ** 2
        absent = 0.5 * (1 - labels) * F.relu(lengths - 0.1) ** 2
        return (present + absent).sum(dim=1).mean()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    data = digits()
    model = CapsNet()
    margin = CapsuleMarginLoss()

    def loss_fn(v, xb, yb):
        one_hot = F.one_hot(yb, CLASSES).float()
        lengths = v.norm(dim=-1)
        if fixed:
            classification = margin(one_hot, lengths)
        else:
            classification = margin(lengths, one_hot)      # BUG: output passed as labels
        return classification + reconstruction_loss(model, v, xb, yb)

    return train(model, data, steps, loss_fn=loss_fn, **watch)
