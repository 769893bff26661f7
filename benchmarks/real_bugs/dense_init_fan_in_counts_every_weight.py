"""A hand-written dense layer's Xavier initialisation takes its fan-in as the number of ALL
its weights (inputs x outputs) instead of its inputs: the bound sqrt(3 / fan_in) comes out
sqrt(outputs) times too small. Each layer then shrinks its input by about that factor, the
signal of a deep tanh network fades to nothing within a few layers, its gradients with it,
and training crawls.

Reported: "Xavier filler and inner product parameters" -
https://github.com/BVLC/caffe/issues/1575 (the XavierFiller took fan_in = count / num, and an
inner product's weight blob has num = 1, "so we are in effect scaling all weights to
sqrt(3/count) instead of sqrt(3/fan_in)"; a maintainer: "It was an unfortunate mistake."). Here
a five-layer tanh MLP on the digits built from such a layer, trained with SGD. Fix:
fan_in = the layer's input width (``weight.shape[1]``), as ``nn.init.xavier_uniform_``
computes it.

Measured (300 steps, 297 held-out digits): the bug's held-out accuracy 0.10 (the loss stays
at chance, ln 10); the fixed twin's 0.91.
"""
import math

import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "Xavier filler and inner product parameters"
LINK = "https://github.com/BVLC/caffe/issues/1575"
EXPECTED = ("INIT_SCALE_TOO_SMALL", "VANISHING_GRADIENTS")
STEPS = 300
HELD_OUT = 297
WIDTH = 128


class Dense(nn.Module):
    def __init__(self, inputs, outputs, fan_in_of_inputs):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(outputs, inputs))
        self.bias = nn.Parameter(torch.zeros(outputs))
        if fan_in_of_inputs:
            fan_in = inputs
        else:
            fan_in = self.weight.numel()                 # BUG: every weight, not the inputs
        bound = math.sqrt(3.0 / fan_in)
        with torch.no_grad():
            self.weight.uniform_(-bound, bound)

    def forward(self, x):
        return x @ self.weight.t() + self.bias


def build(fixed):
    widths = [64, WIDTH, WIDTH, WIDTH, WIDTH]
    layers = []
    for inputs, outputs in zip(widths, widths[1:]):
        layers += [Dense(inputs, outputs, fixed), nn.Tanh()]
    return nn.Sequential(*layers, Dense(WIDTH, 10, fixed))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = build(fixed)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    mon = train_watched(model, optimizer, nn.CrossEntropyLoss(),
                        batches(x[:-HELD_OUT], y[:-HELD_OUT], steps), **watch)
    with torch.no_grad():
        predicted = model(x[-HELD_OUT:]).argmax(1)
    mon.test_accuracy = round(float((predicted == y[-HELD_OUT:]).float().mean()), 3)
    return mon
