"""A deep plain ReLU network left at PyTorch's default Linear init (kaiming_uniform with
a = sqrt(5): weight variance 1 / (3 fan_in)): with ReLUs every layer shrinks the signal's
second moment about sixfold, so a ten-layer stack starts with a vanishing output and
gradient and the loss sits at chance (ln 10 = 2.3).

Reported: "Why vanilla ReLU cannot train at all." -
https://github.com/adambielski/siamese-triplet/issues/17 (PReLU swapped for ReLU: "the
training loss stays at 2.3" even on MNIST; the maintainer: "For training with ReLU, you need
to initialize convolutional layers more carefully. E.g. you can use kaiming initialization
with gain for ReLU nonlinearity"). Here a ten-layer, 64-wide ReLU MLP on the digits, SGD
with momentum. Fix: ``kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")`` and
zero biases, as the maintainer's snippet.
Measured (held-out accuracy): 0.09 vs 0.96; seeds + 1000: 0.08 vs 0.90.
"""
import torch
from torch import nn

from benchmarks.real_bugs._init216 import digits_split, train

TITLE = "Why vanilla ReLU cannot train at all."
LINK = "https://github.com/adambielski/siamese-triplet/issues/17"
EXPECTED = ("INIT_SCALE_TOO_SMALL", "VANISHING_GRADIENTS")
STEPS = 250
DEPTH = 10


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    data = digits_split()
    layers = []
    for _ in range(DEPTH - 1):
        layers += [nn.Linear(64, 64), nn.ReLU()]
    model = nn.Sequential(*layers, nn.Linear(64, 10))     # BUG when not fixed: default init
    if fixed:
        for m in model.modules():
            if isinstance(m, nn.Linear):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
                nn.init.constant_(m.bias, 0)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.02, momentum=0.9)
    return train(model, optimizer, nn.CrossEntropyLoss(), data, steps, **watch)
