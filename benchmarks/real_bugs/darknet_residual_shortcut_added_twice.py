"""A hand-written DarkNet-53 residual block that adds its shortcut twice: `out += residual`
appears two times in forward, so each block returns f(x) + 2x. Nothing normalises the sum,
so the identity path doubles at every block (x 2^8 after eight blocks) and swamps what the
convolutions add; the classifier reads features dominated by the stem's activations
scaled up hundreds of times.

Reported: "Mistake of ResidualBlock()" - https://github.com/yakhyo/darknet-pytorch/issues/2
("the shortcut operation is performed twice in forward of ResidualBlock"; the author: "I
will fix it soon", then "Issue resolved"). Here the block of that repository (1x1 conv to
half the channels, 3x3 conv back, each conv-BN-LeakyReLU(0.01), add the input) stacked
eight times after a conv-BN-LeakyReLU stem on the 8x8 digits, global average pooling and a
linear head; SGD with momentum, 300 steps of 32 images, 597 held-out digits.
Harm (held-out accuracy, the bug run vs the fixed twin): 0.11 vs 0.93 (chance is 0.10);
seeds + 1000: 0.09 vs 0.88.
Fix: add the shortcut once.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._cnn_layers import accuracy, digit_images, train_batches

TITLE = "Mistake of ResidualBlock()"
LINK = "https://github.com/yakhyo/darknet-pytorch/issues/2"
EXPECTED = ("EXPLODING_ACTIVATIONS",)
STEPS = 300


def conv(c_in, c_out, k):
    return nn.Sequential(nn.Conv2d(c_in, c_out, k, padding=k // 2, bias=False),
                         nn.BatchNorm2d(c_out), nn.LeakyReLU(0.01))


class ResidualBlock(nn.Module):
    def __init__(self, planes, fixed):
        super().__init__()
        self.fixed = fixed
        self.conv1 = conv(planes, planes // 2, 1)
        self.conv2 = conv(planes // 2, planes, 3)

    def forward(self, x):
        residual = x
        out = self.conv1(x)
        out = self.conv2(out)
        out += residual
        if not self.fixed:
            out += residual                      # BUG: the shortcut a second time
        return out


class DarkNet(nn.Module):
    def __init__(self, fixed, planes=32, depth=8):
        super().__init__()
        self.stem = conv(1, planes, 3)
        self.blocks = nn.Sequential(*[ResidualBlock(planes, fixed) for _ in range(depth)])
        self.head = nn.Linear(planes, 10)

    def forward(self, x):
        h = self.blocks(self.stem(x))
        return self.head(h.mean(dim=(2, 3)))     # global average pooling


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_test, y_test = digit_images()
    model = DarkNet(fixed)
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
