"""A BatchNorm ported from TensorFlow keeps TensorFlow's momentum=0.99: PyTorch's momentum is
the weight of the NEW batch, so the running statistics are 99% the last batch's and the
model evaluates with the statistics of whichever batch came last.

Reported: "About BatchNorm" - https://github.com/r9y9/tacotron_pytorch/issues/19 (the
BatchNorm1d was built "following tensorflow's default parameters"; the reporter points out
that PyTorch's momentum is the opposite of TensorFlow's; the author: "that's simply my
mistake" ... "Fixed"). Here an MLP with a BatchNorm1d trains on small batches of the digits.
Fix: momentum = 1 - 0.99 = 0.01 (or PyTorch's default 0.1).
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "About BatchNorm"
LINK = "https://github.com/r9y9/tacotron_pytorch/issues/19"
EXPECTED = ("BATCHNORM_MOMENTUM_INVERTED",)
STEPS = 150


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    momentum = 0.01 if fixed else 0.99          # BUG: TensorFlow's convention
    model = nn.Sequential(nn.Linear(64, 64), nn.BatchNorm1d(64, momentum=momentum),
                          nn.ReLU(), nn.Linear(64, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    return train_watched(model, optimizer, nn.CrossEntropyLoss(),
                         batches(x, y, steps, batch_size=16), **watch)
