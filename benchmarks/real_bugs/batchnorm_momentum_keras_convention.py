"""A TensorFlow/Keras model ported to PyTorch keeps Keras' BatchNormalization momentum
(0.9/0.99, the weight of the OLD running statistics) in ``nn.BatchNorm1d(momentum=...)``,
where momentum is the weight of the NEW batch: the running mean and variance follow the last
one or two mini-batches, so evaluation normalises with one small batch's noisy statistics.

Reported: "fix momentum value for torch apphub and architectures" -
https://github.com/fastestimator/fastestimator/pull/1201 ("the definition of BN's momentum is
different between tf and torch. if momentum is x in tf, then in pytorch it should be 1-x";
the PyTorch ports of the apphub examples had kept the TensorFlow values). Here a digits MLP
with two BatchNorm1d layers at momentum 0.9 (the TensorFlow value), batches of 8, SGD with
momentum, evaluated in eval mode. Fix: momentum 0.1 (0.9 converted: 1 - 0.9).

Measured (held-out accuracy in eval mode, 360 digits, 300 steps): 0.82 vs 0.87; seeds +
1000: 0.78 vs 0.88.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._keras_ports import digits_split

TITLE = "fix momentum value for torch apphub and architectures"
LINK = "https://github.com/fastestimator/fastestimator/pull/1201"
EXPECTED = ("BATCHNORM_MOMENTUM_INVERTED",)
STEPS = 300
KERAS_MOMENTUM = 0.9


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, _, _ = digits_split()
    momentum = 1 - KERAS_MOMENTUM if fixed else KERAS_MOMENTUM   # BUG: Keras' value kept
    model = nn.Sequential(nn.Linear(64, 64), nn.BatchNorm1d(64, momentum=momentum), nn.ReLU(),
                          nn.Linear(64, 64), nn.BatchNorm1d(64, momentum=momentum), nn.ReLU(),
                          nn.Linear(64, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps, batch_size=8):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
