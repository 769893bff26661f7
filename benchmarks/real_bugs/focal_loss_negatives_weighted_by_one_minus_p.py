"""A sigmoid focal loss whose negative term is weighted by (1 - p) ** gamma instead of
p ** gamma: the modulating factor meant to down-weight EASY negatives (p near 0) does the
opposite, it silences the HARD ones (p near 1), so nothing pushes a confident false
positive back down and the model ends up calling most negatives positive.

Reported: "sigmiod focal loss" - https://github.com/yqyao/SSD_Pytorch/issues/32
(``loss_neg = -1. * torch.pow(1 - P, self.gamma) * torch.log(1 - P) * (1 - targets) * ...``,
"according to paper, I think it should be torch.pow(P, self.gamma)"; the author: "Yes, you
are right"). Here "is it a 0?" on the digits (one image in ten positive), a small MLP,
gamma 2 and alpha 0.25 as in the paper. Fix: p ** gamma on the negative term.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "sigmiod focal loss"
LINK = "https://github.com/yqyao/SSD_Pytorch/issues/32"
EXPECTED = ("LOSS_IGNORES_HARD_NEGATIVES",)
STEPS = 200
GAMMA, ALPHA = 2.0, 0.25


def focal_loss(fixed):
    def loss(logits, targets):
        p = torch.sigmoid(logits.squeeze(1)).clamp(1e-6, 1 - 1e-6)
        positive = -ALPHA * (1 - p) ** GAMMA * torch.log(p) * targets
        # BUG when not fixed: the negatives' factor is (1 - p) ** gamma, as for positives
        factor = p ** GAMMA if fixed else (1 - p) ** GAMMA
        negative = -(1 - ALPHA) * factor * torch.log(1 - p) * (1 - targets)
        return (positive + negative).mean()
    return loss


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, digits = classification()
    y = (digits == 0).float()                            # positives are rare (about 10%)
    model = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    return train_watched(model, optimizer, focal_loss(fixed), batches(x, y, steps), **watch)
