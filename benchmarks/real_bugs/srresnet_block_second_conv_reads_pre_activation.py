"""An SRResNet-style super-resolver whose residual block feeds its second convolution the
first convolution's output instead of its activation: the ReLU is computed and never used,
so every block is two stacked linear convolutions (one linear map) added to its input. The
trunk that should learn the non-linear mapping from low- to high-resolution features is
linear, and the sub-pixel (PixelShuffle) head has only the stem's activation to work with;
training runs and the loss falls, to a worse fit.

Reported: "srResNet.py" - https://github.com/zoharli/SRGAN-tensorflow/issues/1 (in the
residual block, "conv2=conv_layer(conv1, ...) should be modified to? conv2=conv_layer(relu,
...)"; the author: "Yes, thanks for finding this bug, I have fixed it"). Here an ESPCN/SRResNet
shape on the 8x8 digits: the 4x4 average-pooled digit goes through a 3x3 stem (32 maps,
ReLU), three residual blocks (3x3 conv, ReLU, 3x3 conv, plus the block's input), then a 3x3
conv to 4 channels and PixelShuffle(2) to the 8x8 output; Adam, batches of 64, 300 steps.

Fix: the second convolution reads the ReLU's output, conv2(relu(conv1(x))).

Measured (held-out PSNR on 512 digits, dB): 16.77 with the bug, 17.51 fixed; seeds + 1000:
16.62 vs 17.43.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._sr_denoise_beginner import digits, downsampled, psnr

TITLE = "srResNet.py"
LINK = "https://github.com/zoharli/SRGAN-tensorflow/issues/1"
EXPECTED = ("LINEAR_LAYERS_STACKED",)
STEPS = 300
WIDTH = 32


class Block(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.fixed = fixed
        self.conv1 = nn.Conv2d(WIDTH, WIDTH, 3, padding=1)
        self.conv2 = nn.Conv2d(WIDTH, WIDTH, 3, padding=1)

    def forward(self, x):
        conv1 = self.conv1(x)
        relu = F.relu(conv1)
        if self.fixed:
            conv2 = self.conv2(relu)
        else:
            conv2 = self.conv2(conv1)          # BUG: reads conv1, the ReLU goes unused
        return x + conv2


class SRResNet(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.stem = nn.Conv2d(1, WIDTH, 3, padding=1)
        self.blocks = nn.Sequential(*[Block(fixed) for _ in range(3)])
        self.upsample = nn.Sequential(nn.Conv2d(WIDTH, 4, 3, padding=1), nn.PixelShuffle(2))

    def forward(self, low):
        return self.upsample(self.blocks(F.relu(self.stem(low))))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, held_out = digits()
    low_train = downsampled(train)
    model = SRResNet(fixed)
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
