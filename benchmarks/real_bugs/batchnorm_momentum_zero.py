"""Batch norm built with momentum=0: the running mean and variance never move from their
start (0 and 1), so eval mode normalises with statistics that describe no data.

Reported: "BatchNorm momentum set to 0 in Inception models" -
https://github.com/Cadene/pretrained-models.pytorch/issues/5 ("Setting momentum to 0
prevents the running mean and var from being updated during training. When training one
of these models on a different dataset, this causes a significant discrepancy between
train and eval modes"; the port had carried a TensorFlow setting over). Here a small conv
net on the digits with BatchNorm2d(momentum=0) after each convolution: training looks
normal, evaluation does not. Fix: PyTorch's default momentum (0.1).
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "BatchNorm momentum set to 0 in Inception models"
LINK = "https://github.com/Cadene/pretrained-models.pytorch/issues/5"
EXPECTED = ("BATCHNORM_STATISTICS_FROZEN",)
STEPS = 150


def conv_block(cin, cout, momentum):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False),
                         nn.BatchNorm2d(cout, eps=0.001, momentum=momentum), nn.ReLU())


def build(fixed):
    momentum = 0.1 if fixed else 0.0                     # BUG: momentum=0 freezes the stats
    return nn.Sequential(conv_block(1, 8, momentum), nn.MaxPool2d(2),
                         conv_block(8, 16, momentum), nn.Flatten(), nn.Linear(256, 10))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification(images=True)
    model = build(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    return train_watched(model, optimizer, loss_fn, batches(x, y, steps), **watch)
