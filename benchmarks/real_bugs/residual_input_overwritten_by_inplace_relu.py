"""A residual block whose first layer is ``nn.ReLU(inplace=True)``: the ReLU rewrites the
block's own input tensor, so ``out += input`` afterwards adds the rectified input, not the
input. The skip path was meant to carry the previous layer's pre-activation values
unchanged; instead both paths see only their positive half, and whatever the negative
half held is gone before the head reads it.

Reported: "ResBlock with inplace relu?" -
https://github.com/rosinality/vq-vae-2-pytorch/issues/60 (the reporter: the point is "to
pass forward the pre-activation values from the previous layer as the identity ... However,
since you have inplace=True for the start ReLU, you actually end up getting the latter";
the author: "Oh...Definitely it is a bug. Thank you!"). Here the digits go through a
narrow linear stem (4 units, a bottleneck like the VQ-VAE's latent) and two such residual
blocks to a 10-way head. Fix: ``nn.ReLU()`` (not in place) as the block's first layer.

Measured (300 steps, 360 held-out digits): accuracy 0.40 with the bug against 0.77 for
the fixed twin (seeds 1 and 2: 0.63 against 0.73, 0.73 against 0.79).
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification

TITLE = "ResBlock with inplace relu?"
LINK = "https://github.com/rosinality/vq-vae-2-pytorch/issues/60"
EXPECTED = ("RESIDUAL_INPUT_MODIFIED_IN_PLACE",)
STEPS = 300
WIDTH = 4
HELD_OUT = 360


class ResBlock(nn.Module):
    def __init__(self, channel, fixed):
        super().__init__()
        self.conv = nn.Sequential(
            nn.ReLU(inplace=not fixed),     # BUG (fixed=False): rewrites the block's input
            nn.Linear(channel, channel), nn.ReLU(inplace=True), nn.Linear(channel, channel))

    def forward(self, input):
        out = self.conv(input)
        out += input
        return out


def run(fixed=False, steps=STEPS, **watch):
    import nndebug as nd
    torch.manual_seed(0)
    x, y = classification()
    x_train, y_train = x[:-HELD_OUT], y[:-HELD_OUT]
    model = nn.Sequential(nn.Linear(64, WIDTH), ResBlock(WIDTH, fixed), ResBlock(WIDTH, fixed),
                          nn.Linear(WIDTH, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x_train, y_train, steps):
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        mon.accuracy = float((model(x[-HELD_OUT:]).argmax(1) == y[-HELD_OUT:]).float().mean())
    return mon
