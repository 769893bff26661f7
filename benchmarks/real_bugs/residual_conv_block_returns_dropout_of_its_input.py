"""A residual convolution block whose last line applies dropout to the block's INPUT instead
of to the sum it just computed: `out = out + self.reduce_conv(x)` then `out = self.drop(x)`.
The convolutions and the 1x1 shortcut run, but their result is thrown away; every block
hands on (a dropped-out copy of) what it received, its weights get no gradient and the
network is only its stem and its head.

Reported: "ConvolutionFrontEnd with residuals skips residual branches" -
https://github.com/speechbrain/speechbrain/issues/1124 ("The `ConvBlock` forward method is
broken when residual is set to True ... out = out + self.reduce_conv(x); out =
self.drop(x). The last line of code should be out = self.drop(out)"; the maintainers
confirmed and fixed it). Here a digits CNN written the tutorial way: a 3x3 stem, two such
blocks (conv-BN-ReLU twice, 1x1 shortcut, dropout), global average pooling and a linear
head; Adam, 300 steps of 32 images, 597 held-out digits.
Harm (held-out accuracy, the bug run vs the fixed twin): 0.21 vs 0.88;
seeds + 1000: 0.27 vs 0.98.
Fix: `out = self.drop(out)`.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._cnn_layers import accuracy, digit_images, train_batches

TITLE = "ConvolutionFrontEnd with residuals skips residual branches"
LINK = "https://github.com/speechbrain/speechbrain/issues/1124"
EXPECTED = ("NO_GRADIENT",)
STEPS = 300


class ConvBlock(nn.Module):
    def __init__(self, channels, fixed):
        super().__init__()
        self.fixed = fixed
        self.convs = nn.Sequential(
            nn.Conv2d(channels, channels, 3, padding=1), nn.BatchNorm2d(channels), nn.ReLU(),
            nn.Conv2d(channels, channels, 3, padding=1), nn.BatchNorm2d(channels), nn.ReLU())
        self.reduce_conv = nn.Conv2d(channels, channels, 1)
        self.drop = nn.Dropout(0.1)

    def forward(self, x):
        out = self.convs(x)
        out = out + self.reduce_conv(x)
        if self.fixed:
            return self.drop(out)
        return self.drop(x)                  # BUG: the block's input, not its output


class Net(nn.Module):
    def __init__(self, fixed, channels=16):
        super().__init__()
        self.stem = nn.Conv2d(1, channels, 3, padding=1)
        self.blocks = nn.Sequential(ConvBlock(channels, fixed), ConvBlock(channels, fixed))
        self.head = nn.Linear(channels, 10)

    def forward(self, x):
        h = self.blocks(F.relu(self.stem(x)))
        return self.head(h.mean(dim=(2, 3)))     # global average pooling


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_test, y_test = digit_images()
    model = Net(fixed)
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
