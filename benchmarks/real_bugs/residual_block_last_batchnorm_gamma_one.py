"""A residual block's last BatchNorm left with gamma = 1 (the default) instead of 0: every
block adds a unit-variance branch to the skip path at initialisation, so the signal's
variance grows with depth and a deep stack of blocks starts unstable.

Reported: "Fix Gradient explosion with ResNet" - https://github.com/wvabrinskas/Neuron/pull/124
("ResNet layer was incredibly unstable. After some debugging and research I found that the
last BatchNorm layer of the ResNet block should be initialized with a gamma of 0's", after
Bag of Tricks; merged). Here a 24-block residual MLP (Linear, BatchNorm, ReLU, Linear,
BatchNorm, then skip + ReLU) on the digits, SGD with momentum. Fix: ``zeros_`` on each
block's last BatchNorm weight.
Measured (held-out accuracy): 0.36 vs 0.88; seeds + 1000: 0.18 vs 0.84.
"""
import torch
from torch import nn

from benchmarks.real_bugs._init216 import digits_split, train

TITLE = "Fix Gradient explosion with ResNet"
LINK = "https://github.com/wvabrinskas/Neuron/pull/124"
EXPECTED = ("EXPLODING_GRADIENTS",)
STEPS = 250
BLOCKS = 24


class Block(nn.Module):
    def __init__(self, width, zero_gamma):
        super().__init__()
        self.fc1, self.bn1 = nn.Linear(width, width), nn.BatchNorm1d(width)
        self.fc2, self.bn2 = nn.Linear(width, width), nn.BatchNorm1d(width)
        if zero_gamma:
            nn.init.zeros_(self.bn2.weight)

    def forward(self, x):
        branch = self.bn2(self.fc2(torch.relu(self.bn1(self.fc1(x)))))
        return torch.relu(x + branch)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    data = digits_split()
    model = nn.Sequential(nn.Linear(64, 64),
                          *[Block(64, zero_gamma=fixed) for _ in range(BLOCKS)],  # BUG: gamma 1
                          nn.Linear(64, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.2, momentum=0.9)
    return train(model, optimizer, nn.CrossEntropyLoss(), data, steps, **watch)
