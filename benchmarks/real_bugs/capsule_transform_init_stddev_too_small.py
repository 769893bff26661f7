"""Weights drawn with ``stddev=0.01`` in a stack of tanh layers: each layer shrinks the signal
about tenfold (0.01 x sqrt(64) = 0.08), so the output and the early layers' gradients start
near zero and the first tens of batches barely move the loss.

Reported: "made initial weights higher-variance" - https://github.com/ageron/handson-ml/pull/176
(the capsule network notebook's transformation matrices start at stddev 0.01: "it typically
takes ~50 batches to start changing losses in visible range. This is a typical sign of bad
initialization"; with stddev 0.1 the model starts learning right away; merged). Here a
four-matrix tanh MLP on the digits, every weight ``normal_(0, 0.01)``, SGD with momentum.
Fix: stddev 0.1 (as the pull request).
Measured (held-out accuracy): 0.11 vs 0.96; seeds + 1000: 0.10 vs 0.91.
"""
import torch
from torch import nn

from benchmarks.real_bugs._init216 import digits_split, train

TITLE = "made initial weights higher-variance"
LINK = "https://github.com/ageron/handson-ml/pull/176"
EXPECTED = ("INIT_SCALE_TOO_SMALL",)
STEPS = 200


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    data = digits_split()
    model = nn.Sequential(nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, 64), nn.Tanh(),
                          nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, 10))
    std = 0.1 if fixed else 0.01                          # BUG when not fixed: stddev 0.01
    for m in model.modules():
        if isinstance(m, nn.Linear):
            nn.init.normal_(m.weight, 0.0, std)
            nn.init.zeros_(m.bias)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    return train(model, optimizer, nn.CrossEntropyLoss(), data, steps, **watch)
