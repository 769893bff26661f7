"""Images kept in [0, 255] after their conversion to float, then normalised with the
ImageNet mean and std, which are given for pixels in [0, 1]: the inputs come out in the
hundreds to a thousand, not around 0 with unit spread, and a small network without batch
norm blows up on its first steps.

Reported: "Fix to imagenet main.py data normalization." -
https://github.com/NVIDIA/apex/pull/21 ("the fast_collate function returns image data as
uint8 in range [0,255]. This data is converted directly to float without range scaling,
i.e. it keeps the range [0.0, 255.0]. As such, the normalization mean and stddev need to be
scaled by 255 to work correctly."). Here the 8x8 digits as 8-bit grayscale, replicated to
three channels the way a grayscale image is fed to an RGB network, normalised per channel
with ImageNet's (0.485, 0.456, 0.406) and (0.229, 0.224, 0.225). Fix: scale the pixels to
[0, 1] first (or scale the mean and std by 255).
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "Fix to imagenet main.py data normalization."
LINK = "https://github.com/NVIDIA/apex/pull/21"
EXPECTED = ("UNNORMALIZED_INPUTS",)
STEPS = 150
MEAN = torch.tensor([0.485, 0.456, 0.406])[None, :, None, None]
STD = torch.tensor([0.229, 0.224, 0.225])[None, :, None, None]


def small_cnn():
    return nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.Flatten(),
                         nn.Linear(32 * 4 * 4, 10))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification(images=True)
    pixels = torch.round(x * 255).repeat(1, 3, 1, 1)   # 8-bit grayscale as RGB, as float
    if fixed:
        pixels = pixels / 255                           # the fix: [0, 1] before Normalize
    x = (pixels - MEAN) / STD                           # BUG when not fixed: 0-255 pixels
    model = small_cnn()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    return train_watched(model, optimizer, nn.CrossEntropyLoss(), batches(x, y, steps),
                         **watch)
