"""Blurred/sharp digit pairs and a small residual deblurring network for the image-restoration
cases of batch 360. The 8x8 digits upsampled (bilinear) to 16x16 are the sharp images; a
5x5 Gaussian blur (sigma 1.2, replicate padding) makes their blurred twins. The network learns
the residual to its input (out = blurred + f(blurred)), the usual shape of a deblurring or
denoising CNN, and is fully convolutional, so it trains on crops and is tested on whole images.
``ssim`` is the Gaussian-window SSIM of Wang et al. (2004) on images in [0, 1]."""
import torch
from torch import nn
from torch.nn import functional as F

from benchmarks.real_bugs._common import classification

HELD_OUT = 297
SIZE = 16


def _gaussian(size, sigma):
    r = torch.arange(size, dtype=torch.float32) - (size - 1) / 2
    g = torch.exp(-r ** 2 / (2 * sigma ** 2))
    g = g / g.sum()
    return (g[:, None] * g[None, :]).view(1, 1, size, size)


BLUR = _gaussian(5, 1.2)
WINDOW = _gaussian(5, 1.0)


def blur(sharp):
    return F.conv2d(F.pad(sharp, (2, 2, 2, 2), mode="replicate"), BLUR)


def pairs():
    """(blurred, sharp) 16x16 images in [0, 1], split into training and held-out rows."""
    x, _ = classification(images=True)
    sharp = F.interpolate(x, size=(SIZE, SIZE), mode="bilinear", align_corners=False)
    sharp = sharp.clamp(0, 1)
    blurred = blur(sharp)
    return (blurred[:-HELD_OUT], sharp[:-HELD_OUT]), (blurred[-HELD_OUT:], sharp[-HELD_OUT:])


class Deblurrer(nn.Module):
    """Three 3x3 convolutions predicting the residual added back to the blurred input."""

    def __init__(self, width=16):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(1, width, 3, padding=1), nn.ReLU(),
            nn.Conv2d(width, width, 3, padding=1), nn.ReLU(),
            nn.Conv2d(width, 1, 3, padding=1))

    def forward(self, blurred):
        return blurred + self.body(blurred)


def crop(images, top, left, size):
    """Per-image crops: images (N, 1, H, W), top/left (N,) int64 offsets -> (N, 1, size, size)."""
    n = len(images)
    rows = (top[:, None] + torch.arange(size))[:, :, None]          # (N, size, 1)
    cols = (left[:, None] + torch.arange(size))[:, None, :]         # (N, 1, size)
    return images[torch.arange(n)[:, None, None], 0, rows, cols].unsqueeze(1)


def ssim(x, y, data_range=1.0):
    """Mean SSIM of (N, 1, H, W) images (Gaussian 5x5 window, 'valid' positions)."""
    c1, c2 = (0.01 * data_range) ** 2, (0.03 * data_range) ** 2
    mx, my = F.conv2d(x, WINDOW), F.conv2d(y, WINDOW)
    sxx = F.conv2d(x * x, WINDOW) - mx ** 2
    syy = F.conv2d(y * y, WINDOW) - my ** 2
    sxy = F.conv2d(x * y, WINDOW) - mx * my
    num = (2 * mx * my + c1) * (2 * sxy + c2)
    den = (mx ** 2 + my ** 2 + c1) * (sxx + syy + c2)
    return (num / den).mean()


def psnr(x, y):
    """PSNR in dB of images in [0, 1] (outputs clipped to [0, 1] first)."""
    mse = F.mse_loss(x.clamp(0, 1), y)
    return float(10 * torch.log10(1 / mse))
