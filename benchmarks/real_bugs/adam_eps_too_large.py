"""Adam built with eps=0.1 where 1e-8 is meant: once the gradients are smaller than eps,
the denominator sqrt(v) + eps is eps, not the gradient's scale, and Adam's step shrinks to
lr * gradient / eps, far below the learning rate that was tuned; training crawls.

Reported: "Fix default eps value of the Adam optimizer" -
https://github.com/mlpnlp/mlpnlp-nmt/pull/4 ("the default eps value of the Adam optimizer
(0.1) is too large compared to the Chainer's default value: 1e-08 ... the training does
not work well when using eps=0.1"). Here a digits MLP with Adam at lr=1e-3. Fix: eps=1e-8
(the default).
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, mlp, train_watched

TITLE = "Fix default eps value of the Adam optimizer"
LINK = "https://github.com/mlpnlp/mlpnlp-nmt/pull/4"
EXPECTED = ("LR_TOO_LOW",)
STEPS = 150


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    eps = 1e-8 if fixed else 0.1                     # BUG: eps = 0.1
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, eps=eps)
    return train_watched(model, optimizer, nn.CrossEntropyLoss(), batches(x, y, steps),
                         **watch)
