"""Class weights of a binary cross-entropy written in the wrong order: the frequent class
gets the large weight and the rare class the small one, so the loss pushes the model to
predict the frequent class even more, and the rare class is almost never predicted.

Reported: "Possible error in loss weight assignment" -
https://github.com/amanshenoy/multilogue-net/issues/21 (``loss_weights =
torch.FloatTensor([1/0.0816, 1/0.9184])`` for a label 0 that is the frequent one; the
author: "looking into it you seem to be right. Flipping them should be the right way to
go"). Here "is it a 0?" on the digits (one image in ten): the weights are the inverse
frequencies, in reverse order. Fix: weight[c] = 1 / frequency of class c.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "Possible error in loss weight assignment"
LINK = "https://github.com/amanshenoy/multilogue-net/issues/21"
EXPECTED = ("CLASS_WEIGHTS_REVERSED",)
STEPS = 150


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, digits = classification()
    y = (digits == 0).long()                             # class 1 is rare (about 10%)
    frequency = torch.bincount(y, minlength=2).float() / len(y)
    weights = 1 / frequency                              # [1/0.9, 1/0.1]: rare class heavy
    if not fixed:
        weights = weights.flip(0)                        # BUG: the order of the classes
    model = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 2))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    return train_watched(model, optimizer, nn.CrossEntropyLoss(weight=weights),
                         batches(x, y, steps), **watch)
