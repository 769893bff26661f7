"""A keep probability ported from TensorFlow is handed to nn.Dropout, whose p is the
probability of ZEROING: with keep_prob=1 (no dropout meant) every feature in front of the
classifier is zeroed while training, the classifier sees only zeros, and nothing before it
receives a gradient.

Reported: "Dropout: opposite meaning?" -
https://github.com/hassony2/kinetics_i3d_pytorch/issues/6 ("it says dropout_keep_prob=1
but in the PyTorch documentation p is the probability of an element to be zeroed"; fixed by
the repository's next pull request). Here an MLP on the digits with nn.Dropout(keep_prob)
in front of its last layer. Fix: nn.Dropout(p=1 - keep_prob).
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "Dropout: opposite meaning?"
LINK = "https://github.com/hassony2/kinetics_i3d_pytorch/issues/6"
EXPECTED = ("NO_GRADIENT",)
STEPS = 150
KEEP_PROB = 1.0


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    p = 1 - KEEP_PROB if fixed else KEEP_PROB    # BUG: the keep probability as p
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Dropout(p), nn.Linear(64, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    return train_watched(model, optimizer, nn.CrossEntropyLoss(), batches(x, y, steps),
                         **watch)
