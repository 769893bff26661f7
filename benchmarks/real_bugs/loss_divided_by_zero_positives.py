"""An SSD-style loss divides the summed localisation and classification losses by the
number of positive samples in the batch. A batch without a positive has num_pos = 0: the
loss is x / 0 = inf, its gradient inf, and the next update turns every weight into NaN.

Reported: "Problem on Loss Function [division by zero]" -
https://github.com/kuangliu/torchcv/issues/35 ("In some Cases (on the training process) the
`num_pos` will be equal to 0 ... Then an error will be occurred"; the fix discussed: treat
N as 1, or the loss as 0, when there is no positive). Here a detector-like head on the
digits: an objectness logit (is it a 0?) for every sample and, for the positives only, a
regression of where the digit's ink sits; batches of 16 now and then hold no 0. Fix:
divide by num_pos.clamp(min=1).
"""
import torch
from torch import nn
from torch.nn import functional as F

from benchmarks.real_bugs._common import batches, classification, mlp, train_watched

TITLE = "Problem on Loss Function [division by zero]"
LINK = "https://github.com/kuangliu/torchcv/issues/35"
EXPECTED = ("NAN_BORN_IN_FORWARD",)
STEPS = 200
BATCH = 16


def targets(x, y):
    """(objectness in {0, 1}, ink centre row and column in [0, 1]) per sample."""
    ink = x.view(-1, 8, 8)
    mass = ink.sum((1, 2)).clamp_min(1e-6)
    grid = torch.arange(8.0) / 7
    rows = (ink.sum(2) * grid).sum(1) / mass
    cols = (ink.sum(1) * grid).sum(1) / mass
    return torch.cat([(y == 0).float()[:, None], rows[:, None], cols[:, None]], 1)


def ssd_like_loss(fixed):
    def loss(out, target):
        positive = target[:, 0] > 0
        num_pos = positive.sum()
        loc = F.smooth_l1_loss(out[positive, 1:], target[positive, 1:], reduction="sum")
        cls = F.binary_cross_entropy_with_logits(out[:, 0], target[:, 0], reduction="sum")
        if fixed:
            num_pos = num_pos.clamp(min=1)
        return (loc + cls) / num_pos                  # BUG: num_pos can be 0
    return loss


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = mlp(outputs=3)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    data = batches(x, targets(x, y), steps, batch_size=BATCH)
    return train_watched(model, optimizer, ssd_like_loss(fixed), data, **watch)
