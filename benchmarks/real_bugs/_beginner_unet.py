"""A first-tutorial U-Net (plain double convolutions with ReLU, no normalisation layers)
for the beginner U-Net cases of batch 244. The scenes come from
benchmarks/real_bugs/_seg154.py: noisy 16x16 single-channel images of filled (class 1) and
outlined (class 2) rectangles; ``binary=True`` folds them into one foreground class.
``pixels`` turns a scene into the 0..255 intensities an image file would hold.
"""
import torch
from torch import nn
from torch.nn import functional as F

from benchmarks.real_bugs._seg154 import batches, mean_iou, scenes  # noqa: F401


def double_conv(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.ReLU(inplace=True),
                         nn.Conv2d(cout, cout, 3, padding=1), nn.ReLU(inplace=True))


class TutorialUNet(nn.Module):
    """Two levels down, two up (transposed convolutions), skips concatenated; ``final`` is
    an optional module applied to the 1x1 head's map."""

    def __init__(self, out=1, width=16, final=None):
        super().__init__()
        self.down1, self.down2 = double_conv(1, width), double_conv(width, 2 * width)
        self.mid = double_conv(2 * width, 4 * width)
        self.up2 = nn.ConvTranspose2d(4 * width, 2 * width, 2, 2)
        self.dec2 = double_conv(4 * width, 2 * width)
        self.up1 = nn.ConvTranspose2d(2 * width, width, 2, 2)
        self.dec1 = double_conv(2 * width, width)
        self.out = nn.Conv2d(width, out, 1)
        self.final = final

    def forward(self, x):
        x1 = self.down1(x)
        x2 = self.down2(F.max_pool2d(x1, 2))
        m = self.mid(F.max_pool2d(x2, 2))
        d2 = self.dec2(torch.cat([self.up2(m), x2], 1))
        d1 = self.dec1(torch.cat([self.up1(d2), x1], 1))
        out = self.out(d1)
        return out if self.final is None else self.final(out)


def pixels(images):
    """Scene images (about -1.5..2.5) as 0..255 integer intensities, float32."""
    return ((images + 1.0) * 85.0).clamp(0, 255).round()
