"""A custom pooling block whose Conv2d layers are constructed inside forward(): every call
builds new layers with fresh random weights, so nothing the optimizer could step exists
between two calls. The layers are not in model.parameters() (the optimizer, built once,
never sees them), they are not in the state_dict, and each batch - and each evaluation -
goes through a different random projection. Only the layers built in __init__ learn, and
they chase features that change every step.

Reported: "Bug : SoftPool Operator" - https://github.com/wangyida/softpool/issues/11
(the SoftPool module creates its nn.Conv2d layers in forward: "you shouldn't create nn
layers in forward function ... I've been debugging for more than 3 days"). Here a digits
classifier: a registered 3x3 conv stem (1 -> 16 channels, padding 1) and ReLU, then a
pooling block whose two 3x3 convolutions (16 -> 16, 8x8 -> 6x6 -> 4x4) are built in its
forward as in the report, then a registered Linear(256, 10); Adam (1e-3), batches of 64,
300 steps, held-out loss every 50 steps.
Fix: build the block's convolutions once, in __init__, and only call them in forward.

Measured (held-out accuracy on 500 digits): 0.082 with the bug, 0.972 fixed;
seeds + 1000: 0.124 vs 0.956.
"""
import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._reg169 import accuracy, split

TITLE = "Bug : SoftPool Operator"
LINK = "https://github.com/wangyida/softpool/issues/11"
EXPECTED = ("UNREGISTERED_PARAMETERS",)
STEPS = 300


class PoolBlock(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.channels = channels

    def forward(self, x):
        # BUG: new layers (new random weights) on every call
        conv_a = nn.Conv2d(self.channels, self.channels, 3)
        conv_b = nn.Conv2d(self.channels, self.channels, 3)
        return F.relu(conv_b(F.relu(conv_a(x))))


class FixedPoolBlock(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv_a = nn.Conv2d(channels, channels, 3)
        self.conv_b = nn.Conv2d(channels, channels, 3)

    def forward(self, x):
        return F.relu(self.conv_b(F.relu(self.conv_a(x))))


class Net(nn.Module):
    def __init__(self, fixed=False, channels=16, classes=10):
        super().__init__()
        self.stem = nn.Conv2d(1, channels, 3, padding=1)
        self.pool = (FixedPoolBlock if fixed else PoolBlock)(channels)
        self.fc = nn.Linear(channels * 4 * 4, classes)

    def forward(self, x):
        return self.fc(self.pool(F.relu(self.stem(x))).flatten(1))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, xh, yh = split(images=True)
    model = Net(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for step, (xb, yb) in enumerate(batches(x, y, steps), 1):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            val_loss = None
            if step % 50 == 0:
                with torch.no_grad():
                    val_loss = loss_fn(model(xh), yh).item()
            mon.step(loss, val_loss=val_loss)
    mon.held_out_accuracy = accuracy(model, xh, yh)
    return mon
