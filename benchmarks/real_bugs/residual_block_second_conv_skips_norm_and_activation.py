"""A hand-written SRResNet residual block whose second convolution reads the first
convolution's raw output instead of its normalised, activated one: `conv2 =
conv_layer(conv1, ...)` where `conv_layer(relu, ...)` was meant. The batch norm and leaky
ReLU between the two convolutions are computed and thrown away (the first norm's weights
never get a gradient), so each block is x + BN(conv(conv(x))): linear in its input. The
whole residual tower, sixteen blocks in the report, adds no non-linearity at all.

Reported: "srResNet.py" - https://github.com/zoharli/SRGAN-tensorflow/issues/1 ("in the
srResNet.py (line 27, residual_block) conv2=conv_layer(conv1,conv_filter([3,3,64,64]),1)
should be modified to? conv2=conv_layer(relu,...)"; the author: "Yes, thanks for finding
this bug, I have fixed it"). Here the same tower in a digits classifier: a 3x3 stem with
leaky ReLU, four such blocks (16 channels), a conv-BN closing the tower, the stem's output
added back (the generator's long skip), global average pooling and a linear head; Adam,
300 steps of 32 images, 597 held-out digits.
Harm (held-out accuracy, the bug run vs the fixed twin): 0.54 vs 0.94;
seeds + 1000: 0.68 vs 0.85.
Fix: the second convolution reads the leaky ReLU's output.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._cnn_layers import accuracy, digit_images, train_batches

TITLE = "srResNet.py"
LINK = "https://github.com/zoharli/SRGAN-tensorflow/issues/1"
EXPECTED = ("NO_GRADIENT", "LINEAR_LAYERS_STACKED")
STEPS = 300


class ResidualBlock(nn.Module):
    def __init__(self, channels, fixed):
        super().__init__()
        self.fixed = fixed
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1)
        self.bn2 = nn.BatchNorm2d(channels)

    def forward(self, x):
        conv1 = self.conv1(x)
        relu = F.leaky_relu(self.bn1(conv1), 0.2)
        conv2 = self.conv2(relu if self.fixed else conv1)   # BUG: conv1, not relu
        return x + self.bn2(conv2)


class SRResNetClassifier(nn.Module):
    def __init__(self, fixed, channels=16, depth=4):
        super().__init__()
        self.conv1 = nn.Conv2d(1, channels, 3, padding=1)
        self.blocks = nn.Sequential(*[ResidualBlock(channels, fixed) for _ in range(depth)])
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1)
        self.bn = nn.BatchNorm2d(channels)
        self.head = nn.Linear(channels, 10)

    def forward(self, x):
        relu1 = F.leaky_relu(self.conv1(x), 0.2)
        h = self.bn(self.conv2(self.blocks(relu1))) + relu1
        return self.head(h.mean(dim=(2, 3)))     # global average pooling


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_test, y_test = digit_images()
    model = SRResNetClassifier(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in train_batches(x, y, steps):
            loss = F.cross_entropy(model(xb), yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(model, x_test, y_test)
    return mon
