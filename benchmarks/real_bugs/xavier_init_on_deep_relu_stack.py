"""Xavier (Glorot) initialisation on a deep stack of ReLU layers: Glorot's variance 2 / (fan_in
+ fan_out) assumes a unit-gain activation; a ReLU halves the second moment at every layer, so
twelve layers start the signal's second moment about 2^11 times too small and SGD hardly trains the stack.

Reported: "Xavier initialization and ReLu" - https://github.com/davisking/dlib/issues/339 (the
library initialises every layer with Xavier while the examples put ReLUs between them; He et
al. show Xavier "should not be used with ReLu as the network might not be able to converge
properly"; the maintainer agrees a ReLU-aware init is needed). Here a twelve-layer, 64-wide
ReLU MLP on the digits with ``xavier_normal_`` weights and SGD. Fix:
``kaiming_normal_(w, nonlinearity="relu")``.
Measured (held-out accuracy): 0.64 vs 0.88; seeds + 1000: 0.73 vs 0.85.
"""
import torch
from torch import nn

from benchmarks.real_bugs._init216 import digits_split, train

TITLE = "Xavier initialization and ReLu"
LINK = "https://github.com/davisking/dlib/issues/339"
EXPECTED = ("INIT_SCALE_TOO_SMALL", "VANISHING_GRADIENTS")
STEPS = 250
DEPTH = 12


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    data = digits_split()
    layers = []
    for _ in range(DEPTH - 1):
        layers += [nn.Linear(64, 64), nn.ReLU()]
    model = nn.Sequential(*layers, nn.Linear(64, 10))
    for m in model.modules():
        if isinstance(m, nn.Linear):
            if fixed:
                nn.init.kaiming_normal_(m.weight, nonlinearity="relu")
            else:
                nn.init.xavier_normal_(m.weight)          # BUG: a tanh/linear gain under ReLU
            nn.init.zeros_(m.bias)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.02, momentum=0.9)
    return train(model, optimizer, nn.CrossEntropyLoss(), data, steps, **watch)
