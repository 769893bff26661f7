"""A multi-class logistic regression whose forward ends in a sigmoid, trained with
``F.cross_entropy``, which applies its own (log-)softmax: the scores reach the softmax
squashed into (0, 1), so no class can get much more than the others (with 10 classes the
loss can never go below ln(1 + 9/e) = 1.46 nats) and the gradients shrink as the sigmoid
saturates.

Reported: "no need to have sigmoid function if to use cross_entropy" -
https://github.com/opendataval/opendataval/issues/25 (``x = F.sigmoid(x)`` at the end of
the logistic regression, then ``F.cross_entropy`` when there are more than two classes;
"this will affect the performance"; a maintainer added a fix). Here the same model on the
digits (10 classes). Fix: give the raw scores to the loss.
"""
import torch
from torch import nn
from torch.nn import functional as F

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "no need to have sigmoid function if to use cross_entropy"
LINK = "https://github.com/opendataval/opendataval/issues/25"
EXPECTED = ("SQUASHED_LOGITS",)
STEPS = 150


class LogisticRegression(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.linear = nn.Linear(64, 10)
        self.fixed = fixed

    def forward(self, x):
        scores = self.linear(x)
        return scores if self.fixed else torch.sigmoid(scores)   # BUG: squashed scores


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = LogisticRegression(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    return train_watched(model, optimizer, F.cross_entropy, batches(x, y, steps), **watch)
