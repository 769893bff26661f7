"""A weight decay of 0.5 on an SGD-trained regressor: the decay pulls every weight towards
zero harder than the squared error pulls it towards the data, the weights shrink until the
hidden layers carry almost nothing, and the network answers the same value, the targets'
mean, for every input.

Reported: "Any input produce the same output" - https://github.com/BVLC/caffe/issues/1396
(a pose regressor with a Euclidean loss gave one output for all images; an answer: "I
change the weight_decay to a small number (0.0005), then it is normal. I think if the
weight_decay is large (like 0.5), all the weight will eventually becomes zero in my
case."). Here an MLP regresses the digit's (standardised) value from its pixels with SGD,
momentum 0.9 and weight_decay=0.5. Fix: weight_decay=5e-4.

Measured (300 steps, 297 held-out digits): the bug's R^2 is 0.15, the fixed twin's 0.71.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, mlp, regression, train_watched

TITLE = "Any input produce the same output"
LINK = "https://github.com/BVLC/caffe/issues/1396"
EXPECTED = ("SGD_WEIGHT_DECAY_TOO_LARGE", "COUPLED_WEIGHT_DECAY_TOO_LARGE")
STEPS = 300
HELD_OUT = 297


def squared_error(prediction, target):
    return nn.functional.mse_loss(prediction.squeeze(1), target)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = regression()
    model = mlp(outputs=1)
    decay = 5e-4 if fixed else 0.5          # BUG (fixed=False): a decay of 0.5
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9,
                                weight_decay=decay)
    mon = train_watched(model, optimizer, squared_error,
                        batches(x[:-HELD_OUT], y[:-HELD_OUT], steps), **watch)
    with torch.no_grad():
        predicted = model(x[-HELD_OUT:]).squeeze(1)
        truth = y[-HELD_OUT:]
        mon.r2 = round(float(1 - ((predicted - truth) ** 2).mean() / truth.var()), 3)
    return mon
