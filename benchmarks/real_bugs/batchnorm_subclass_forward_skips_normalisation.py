"""A BatchNorm2d subclass (written to fuse an activation into the norm layer) whose forward
returns only the activation: `return self.activation(x)`, never calling the parent's
normalisation. Every "conv-BN-act" of the network is conv-act; the norm layers' weights
and biases sit in the optimizer and never get a gradient, and the residual network trains
without any normalisation at the learning rate chosen for one with it.

Reported: "class BatchNorm2D in fanet.py" - https://github.com/feinanshan/FANet/issues/5
("You defined batchnorm, but in the forward function, you only use activation, can you
explain this?"; a reader: "If [BN were applied] it would be a major Pytorch bug. The
derived module carries the parameters of batch norm, but the forward call is
overridden"). Here a digits ResNet built from that layer: a stem and eight basic blocks
(16 channels, conv-BN(leaky ReLU)-conv-BN, add the input), global average pooling and a
linear head; SGD with momentum, 300 steps of 32 images, 597 held-out digits.
Harm (held-out accuracy, the bug run vs the fixed twin): 0.30 vs 0.98;
seeds + 1000: 0.49 vs 0.99.
Fix: `return self.activation(super().forward(x))`.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._cnn_layers import accuracy, digit_images, train_batches

TITLE = "class BatchNorm2D in fanet.py"
LINK = "https://github.com/feinanshan/FANet/issues/5"
EXPECTED = ("NO_GRADIENT",)
STEPS = 300


class BatchNorm2d(nn.BatchNorm2d):
    """(conv => BN => activation), the activation fused into the norm layer."""

    def __init__(self, num_features, activation="none", fixed=False):
        super().__init__(num_features=num_features)
        self.fixed = fixed
        if activation == "leaky_relu":
            self.activation = nn.LeakyReLU()
        else:
            self.activation = nn.Identity()

    def forward(self, x):
        if self.fixed:
            return self.activation(super().forward(x))
        return self.activation(x)                # BUG: the normalisation is never applied


class BasicBlock(nn.Module):
    def __init__(self, channels, fixed):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = BatchNorm2d(channels, "leaky_relu", fixed)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = BatchNorm2d(channels, "none", fixed)

    def forward(self, x):
        out = self.bn2(self.conv2(self.bn1(self.conv1(x))))
        return F.leaky_relu(out + x)


class ResNet(nn.Module):
    def __init__(self, fixed, channels=16, depth=8):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(1, channels, 3, padding=1, bias=False),
                                  BatchNorm2d(channels, "leaky_relu", fixed))
        self.blocks = nn.Sequential(*[BasicBlock(channels, fixed) for _ in range(depth)])
        self.head = nn.Linear(channels, 10)

    def forward(self, x):
        h = self.blocks(self.stem(x))
        return self.head(h.mean(dim=(2, 3)))     # global average pooling


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_test, y_test = digit_images()
    model = ResNet(fixed)
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
