"""An ESPCN-style sub-pixel super-resolver whose high-resolution targets are scaled to [0, 1]
while its low-resolution inputs reach the network as raw 0-255 grey levels: the division by
255 was done for one of the pair only. The first layer sees inputs hundreds of times larger
than its weights were initialised for, the first outputs are hundreds of times too large,
and Adam's fixed-size steps spend the run shrinking them instead of learning the mapping: the
PSNR stays near 10 dB while the loss falls from its huge start.

Reported: "On the issue of PNSR being considerably reduced." -
https://github.com/hzwer/WACV2024-SAFA/issues/8 (a video super-resolution model trained from
scratch reached a PSNR of about 10; a commenter: "the lowres wasn't normalized (i.e., wasn't
divided by 255) before being passed into the model ... normalizing fixes it"). Here ESPCN on
the 8x8 digits: the 4x4 average-pooled digit, in grey levels 0-255, goes through a 5x5 conv
(32 maps, ReLU), a 3x3 conv (16 maps, ReLU) and a 3x3 conv to 4 channels, PixelShuffle(2)
giving the 8x8 output, trained against the sharp digit in [0, 1] (MSE); Adam, batches of 64,
300 steps. Held-out inputs go through the same pipeline.

Fix: divide the low-resolution input by 255 as well.

Measured (held-out PSNR on 512 digits, dB): 10.03 with the bug, 15.50 fixed; seeds + 1000:
9.99 vs 15.55.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._sr_denoise_beginner import digits, downsampled, psnr

TITLE = "On the issue of PNSR being considerably reduced."
LINK = "https://github.com/hzwer/WACV2024-SAFA/issues/8"
EXPECTED = ("UNNORMALIZED_INPUTS",)
STEPS = 300


class ESPCN(nn.Module):
    def __init__(self, scale=2):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 32, 5, padding=2), nn.ReLU(), nn.Conv2d(32, 16, 3, padding=1),
            nn.ReLU())
        self.subpixel = nn.Sequential(nn.Conv2d(16, scale * scale, 3, padding=1),
                                      nn.PixelShuffle(scale))

    def forward(self, low):
        return self.subpixel(self.features(low))


def pairs(sharp, fixed):
    """(low-resolution input, high-resolution target) as read from 8-bit images."""
    grey = (sharp * 255).round()                     # the 8-bit files
    low = downsampled(grey)
    if fixed:
        low = low / 255
    return low, grey / 255                           # BUG (unfixed): only the target scaled


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, held_out = digits()
    low_train, high_train = pairs(train, fixed)
    model = ESPCN()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(train), steps, batch_size=64, seed=0):
            loss = F.mse_loss(model(low_train[index]), high_train[index])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    low_held, high_held = pairs(held_out, fixed)
    with torch.no_grad():
        mon.held_out_psnr = psnr(model(low_held), high_held)
    return mon
