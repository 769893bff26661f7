"""Images standardised with the dataset's per-channel mean and std twice - once when the
file is loaded, again in the training hook: the second pass takes already-centred pixels
(mean 0, std 1), subtracts the mean again and divides by the std again, so the network
sees inputs centred near -mean/std with a spread of 1/std - about -2 and 4.4 with the
ImageNet constants - instead of 0 and 1. Nothing fails; a network without batch norm
trains from a badly scaled first layer.

Reported: "Do not normalize images two times" -
https://github.com/soumith/imagenet-multiGPU.torch/pull/18 ("Currently, images are mean/std
normalized two times: in loadImage and trainHook / testHook. Looks like copy-paste bug";
merged, and the maintainer: "without batch-normalization, the normalization is so
sensitive, it's the difference between converging (loss goes down) and not converging").
Here the 8x8 digits as 8-bit RGB pictures (a colour tint per image), a small
convolutional net without batch norm, SGD with momentum. Fix: standardise once.

Measured (150 steps of SGD at 0.05, 397 held-out digits): test accuracy 0.87 against
0.96 for the fixed twin at seed 0 (0.89 against 0.94 with seeds shifted by 1000), the last
training loss about 0.2 against 0.005.
"""
import numpy as np
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "Do not normalize images two times"
LINK = "https://github.com/soumith/imagenet-multiGPU.torch/pull/18"
EXPECTED = ("UNNORMALIZED_INPUTS",)
STEPS = 150
HELD_OUT = 397
MEAN = torch.tensor([0.485, 0.456, 0.406])[None, :, None, None]
STD = torch.tensor([0.229, 0.224, 0.225])[None, :, None, None]


def tinted(digits, rng):
    """(N, 3, 8, 8) pictures in [0, 1]: each digit's ink drawn in a random colour on a
    random dark background, rounded to 8 bits as an image file holds it."""
    ink = torch.from_numpy(rng.uniform(0.5, 1.0, (len(digits), 3)).astype(np.float32))
    paper = torch.from_numpy(rng.uniform(0.0, 0.3, (len(digits), 3)).astype(np.float32))
    pictures = digits * ink[:, :, None, None] + (1 - digits) * paper[:, :, None, None]
    return torch.round(pictures * 255) / 255


def standardise(pictures):
    return (pictures - MEAN) / STD


def small_cnn():
    return nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(),
                         nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Linear(32 * 4 * 4, 64), nn.ReLU(),
                         nn.Linear(64, 10))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    digits, y = classification(images=True)
    x = standardise(tinted(digits, np.random.default_rng(0)))   # when the file is loaded
    if not fixed:
        x = standardise(x)                  # BUG: the training hook standardises again
    model = small_cnn()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    mon = train_watched(model, optimizer, nn.CrossEntropyLoss(),
                        batches(x[:-HELD_OUT], y[:-HELD_OUT], steps), **watch)
    with torch.no_grad():
        guess = model(x[-HELD_OUT:]).argmax(1)
    mon.accuracy = round(float((guess == y[-HELD_OUT:]).float().mean()), 3)
    return mon
