"""A convolutional classifier whose weights are drawn by a hand-written He initialisation,
``std = (2 / n) ** 0.5`` with ``n`` the fan-in, in a script run under Python 2: ``2 / n``
of two integers is integer division, 0 for every n above 2, so every convolution starts
with std 0 - all its weights exactly zero. The zero layers pass nothing forward and no
gradient backward; only the output layer's bias learns (the class frequencies). The loss
falls a little from ln(10), then sits at the prior's cross-entropy, and nothing raises.

Reported: "Gradients are Zero on Ubuntu and Python 2.7" -
https://github.com/nmayorov/ufcnn/issues/3 ("the gradients to be 0 for all but the output
layer ... related to Python handling the stddev as an integer math and rounding it to 0";
fixed by ``2.0 / n`` and ``from __future__ import division``). Here the Python 3 spelling
of the same arithmetic, ``2 // n``, in an init function applied to the three 3x3
convolutions (16, 32, 32 channels, biases zero) of a small CNN on the 8x8 digits, a Linear
head with torch's default init, Adam lr 1e-3, batches of 64, 300 steps; 297 digits held
out.

Fix: float division, ``std = (2.0 / n) ** 0.5``.

Measured (held-out accuracy on 297 digits): 0.104 with the bug, 0.923 fixed;
seeds + 1000: 0.101 vs 0.939.
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "Gradients are Zero on Ubuntu and Python 2.7"
LINK = "https://github.com/nmayorov/ufcnn/issues/3"
EXPECTED = ("INIT_SCALE_TOO_SMALL", "SYMMETRIC_INIT", "NO_GRADIENT")
STEPS = 300
HELD_OUT = 297


def init_conv_weights(conv, fixed):
    n = int(np.prod(conv.weight.shape[1:]))          # fan-in: in_channels * kh * kw
    if fixed:
        std = (2.0 / n) ** 0.5
    else:
        std = (2 // n) ** 0.5                        # BUG: Python 2's 2 / n on two ints
    nn.init.normal_(conv.weight, 0.0, std)
    nn.init.zeros_(conv.bias)


class Net(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.convs = nn.ModuleList([nn.Conv2d(1, 16, 3, padding=1),
                                    nn.Conv2d(16, 32, 3, padding=1),
                                    nn.Conv2d(32, 32, 3, padding=1)])
        for conv in self.convs:
            init_conv_weights(conv, fixed)
        self.head = nn.Linear(32 * 4 * 4, 10)

    def forward(self, x):
        h = torch.relu(self.convs[0](x))
        h = torch.relu(self.convs[1](h))
        h = torch.max_pool2d(torch.relu(self.convs[2](h)), 2)
        return self.head(h.flatten(1))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification(images=True)
    model = Net(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x[:-HELD_OUT], y[:-HELD_OUT], steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        mon.held_out_accuracy = round(float((model(x[-HELD_OUT:]).argmax(1) == y[-HELD_OUT:])
                                            .float().mean()), 3)
    return mon
