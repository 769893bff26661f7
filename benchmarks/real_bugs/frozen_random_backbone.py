"""Backbone layers frozen although they were never trained (no pretrained weights loaded).

Reported: "Faster Rcnn construction function freezes backbone layers even for random
initialized backbone" - https://github.com/pytorch/vision/issues/2164 ("initial layers
will always have randomly initialized weights ... This resulted in poor AP"). The stem
(first convolution and its batch norm) keeps requires_grad=False, so it stays at its
random initialisation for the whole run. Fix: freeze only what was pretrained.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = ("Faster Rcnn construction function freezes backbone layers even for random "
         "initialized backbone")
LINK = "https://github.com/pytorch/vision/issues/2164"
EXPECTED = ("FROZEN_PARAMETERS",)
STEPS = 150


def build():
    stem = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
                         nn.Conv2d(8, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))
    body = nn.Sequential(nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Linear(64, 10))
    return nn.Sequential(stem, body)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification(images=True)
    model = build()
    if not fixed:                          # no backbone weights were loaded, yet:
        for p in model[0].parameters():    # BUG: frozen although still random
            p.requires_grad_(False)
    optimizer = torch.optim.SGD([p for p in model.parameters() if p.requires_grad],
                                lr=0.05, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    return train_watched(model, optimizer, loss_fn, batches(x, y, steps), **watch)
