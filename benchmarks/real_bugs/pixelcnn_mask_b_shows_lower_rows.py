"""A PixelCNN whose type-B masked convolutions zero only the kernel's centre row: the rows
below the centre stay visible, so after the type-A first layer the network sees pixels it
has not generated yet, the pixel it predicts among them, and the training likelihood is
far better than any autoregressive model could reach.

Reported: "[Might be a bug]" - https://github.com/j-min/PixelCNN/issues/3 (the type-B mask
is built with ``mask[:, :, height // 2] = 0`` where ``mask[:, :, height // 2 + 1:] = 0`` was
meant; a later reader "totally agrees"). Here a 4-layer PixelCNN (one type-A 5x5
convolution, three type-B 3x3 ones, 16 channels, a 1x1 read-out) models the binarised 8x8 digits pixel
by pixel with a per-pixel BCE.

Measured (seed 0, 150 steps, last 20 steps' mean loss): with the bug 0.038 nats per pixel,
fixed 0.336; sampling from the buggy model pixel by pixel cannot use what it learned to
look at (the pixels below are still blank when each pixel is drawn).
Fix: zero the centre row right of the centre (type B keeps the centre) and every row below.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "[Might be a bug]"
LINK = "https://github.com/j-min/PixelCNN/issues/3"
EXPECTED = ("FUTURE_LEAK",)
STEPS = 150


class MaskedConv2d(nn.Conv2d):
    def __init__(self, mask_type, c_in, c_out, k, fixed):
        super().__init__(c_in, c_out, k, padding=k // 2)
        mask = torch.ones_like(self.weight)
        centre = k // 2
        mask[:, :, centre, centre + (mask_type == "B"):] = 0
        if mask_type == "A" or fixed:
            mask[:, :, centre + 1:] = 0
        else:
            mask[:, :, centre] = 0    # BUG: the centre row instead of the rows below it
        self.register_buffer("mask", mask)

    def forward(self, x):
        return nn.functional.conv2d(x, self.weight * self.mask, self.bias,
                                    padding=self.padding)


class PixelCNN(nn.Module):
    def __init__(self, fixed, channels=16):
        super().__init__()
        layers = [MaskedConv2d("A", 1, channels, 5, fixed), nn.ReLU()]
        for _ in range(3):
            layers += [MaskedConv2d("B", channels, channels, 3, fixed), nn.ReLU()]
        layers.append(nn.Conv2d(channels, 1, 1))
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, _ = classification(images=True)
    pixels = (x > 0.5).float()
    model = PixelCNN(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.BCEWithLogitsLoss()
    return train_watched(model, optimizer, loss_fn, batches(pixels, pixels, steps), **watch)
