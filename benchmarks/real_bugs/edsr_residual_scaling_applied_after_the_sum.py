"""An EDSR-style super-resolver whose residual scaling (0.1, to keep deep residual stacks
stable) multiplies the block's output after the skip is added, (x + res) * 0.1, instead of
the residual branch before it, x + res * 0.1: every block shrinks its input tenfold, so after
three blocks the body's features are 1e-3 of the head's and the global skip drowns them. The
blocks' gradients shrink the same way; what trains is the head and the sub-pixel tail, a
nearly linear upsampler, and the loss falls to its level.

Reported: "[WDSR] order of residual scaling and element-wise sum" -
https://github.com/krasserm/super-resolution/issues/25 ("In this re-implemented code, it seem
that scaling is placed after element-wise sum"; the maintainer: "that's indeed a bug ... The
bug is in both, the edsr and wdsr model implementations"). Here EDSR on the 8x8 digits: the
4x4 average-pooled digit, a 3x3 head conv (24 maps), three residual blocks (3x3 conv, ReLU,
3x3 conv, scaled by 0.1), the global skip from the head, then a 3x3 conv to 4 channels and
PixelShuffle(2); Adam, batches of 64, 300 steps.

Fix: scale the residual branch before adding it, x + 0.1 * res (the fix merged for it).

Measured (held-out PSNR on 512 digits, dB): 14.69 with the bug, 15.85 fixed; seeds + 1000:
14.70 vs 16.00.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._sr_denoise_beginner import digits, downsampled, psnr

TITLE = "[WDSR] order of residual scaling and element-wise sum"
LINK = "https://github.com/krasserm/super-resolution/issues/25"
EXPECTED = ("VANISHING_GRADIENTS", "RESIDUAL_MULTIPLIED")
STEPS = 300
WIDTH = 24
SCALING = 0.1


class ResBlock(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.fixed = fixed
        self.conv1 = nn.Conv2d(WIDTH, WIDTH, 3, padding=1)
        self.conv2 = nn.Conv2d(WIDTH, WIDTH, 3, padding=1)

    def forward(self, x):
        res = self.conv2(F.relu(self.conv1(x)))
        if self.fixed:
            return x + res * SCALING
        return (x + res) * SCALING                 # BUG: the scaling after the sum


class EDSR(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.head = nn.Conv2d(1, WIDTH, 3, padding=1)
        self.body = nn.Sequential(*[ResBlock(fixed) for _ in range(3)])
        self.tail = nn.Sequential(nn.Conv2d(WIDTH, 4, 3, padding=1), nn.PixelShuffle(2))

    def forward(self, low):
        head = self.head(low)
        return self.tail(head + self.body(head))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, held_out = digits()
    low_train = downsampled(train)
    model = EDSR(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(train), steps, batch_size=64, seed=0):
            loss = F.mse_loss(model(low_train[index]), train[index])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        mon.held_out_psnr = psnr(model(downsampled(held_out)), held_out)
    return mon
