"""A residual block that ends `x += x` after it overwrote `x` with its own convolutions'
output: the skip adds the block's output to itself (a doubling, which the next batch norm
undoes) and the input never comes back. The "residual" network is a plain stack of
convolutions as deep as the blocks make it.

Reported: "error in class ResidualBlock(torch.nn.Module):??? In model.py" -
https://github.com/werner-duvaud/muzero-general/issues/89 (the forward runs x =
conv1(x), bn1, relu, conv2, bn2 and then "x += x  #may be a error?"; the block should keep
its input and add it). Here a digits CNN built from eight such blocks (16 channels,
conv-BN-ReLU-conv-BN, add, ReLU) after a 3x3 stem, global average pooling and a linear
head; SGD with momentum, 300 steps of 32 images, 597 held-out digits.
Harm (held-out accuracy, the bug run vs the fixed twin): 0.90 vs 0.95;
seeds + 1000: 0.92 vs 0.96.
Fix: keep the input (`identity = x`) and add it: `x = x + identity`.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._cnn_layers import accuracy, digit_images, train_batches

TITLE = "error in class ResidualBlock(torch.nn.Module):??? In model.py"
LINK = "https://github.com/werner-duvaud/muzero-general/issues/89"
EXPECTED = ("RESIDUAL_BYPASSED",)
STEPS = 300


class ResidualBlock(nn.Module):
    def __init__(self, channels, fixed):
        super().__init__()
        self.fixed = fixed
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)

    def forward(self, x):
        identity = x
        x = self.conv1(x)
        x = self.bn1(x)
        x = F.relu(x)
        x = self.conv2(x)
        x = self.bn2(x)
        if self.fixed:
            x = x + identity
        else:
            x += x                              # BUG: the output added to itself
        return F.relu(x)


class Net(nn.Module):
    def __init__(self, fixed, channels=16, depth=8):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(1, channels, 3, padding=1, bias=False),
                                  nn.BatchNorm2d(channels), nn.ReLU())
        self.blocks = nn.Sequential(*[ResidualBlock(channels, fixed) for _ in range(depth)])
        self.head = nn.Linear(channels, 10)

    def forward(self, x):
        h = self.blocks(self.stem(x))
        return self.head(h.mean(dim=(2, 3)))     # global average pooling


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_test, y_test = digit_images()
    model = Net(fixed)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in train_batches(x, y, steps):
            loss = F.cross_entropy(model(xb), yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(model, x_test, y_test)
    return mon
