"""A colour jitter (random brightness and contrast) put after the normalisation step. The
jitter is written for images in [0, 1] and clamps its result to that range, as torchvision's
and kornia's ``ColorJitter`` do; on standardised images every value below the mean - half
of each image, all of its background - is clamped to 0 and every value above one standard
deviation to 1. The network trains on these clipped images and is evaluated on standardised
ones it has never seen (negative backgrounds, values past 1).

Reported: "Even when I use ColorJitter with all 0's it changes the image tensor" -
https://github.com/kornia/kornia/issues/749 (a ColorJitter with every factor 0 still moved
the image; the maintainer: "Could you check if image_tensor is between [0.,1.]?" - the user:
"yes i think the range was the problem. it seems to be working after renormalizing into
0-1"). Here the digits standardised with one mean and std (MNIST's ``Normalize((0.1307,), (0.3081,))``), then jittered (brightness and contrast factors
in [0.8, 1.2], torchvision's blend-and-clamp), an MLP. Fix: the jitter on the [0, 1]
images, before the standardisation.

Measured (300 steps, 297 held-out standardised digits, seed 0): held-out accuracy 0.875
against the fixed twin's 0.886; every training input of the bug lies in [0, 1] (the
background at exactly 0), every held-out input's background at -0.77.
"""
import torch
from torch.nn import functional as F

from benchmarks.real_bugs._common import batches, classification, mlp, train_watched

TITLE = "Even when I use ColorJitter with all 0's it changes the image tensor"
LINK = "https://github.com/kornia/kornia/issues/749"
EXPECTED = ("AUGMENTATION_CLAMPS_NORMALISED_INPUTS",)
STEPS = 300
HELD_OUT = 297
JITTER = 0.2


def jitter(images, generator):
    """Brightness then contrast, each factor uniform in [1 - JITTER, 1 + JITTER] per image,
    clamped to [0, 1] after each blend (torchvision's adjust_brightness / adjust_contrast)."""
    n = len(images)
    low, high = 1 - JITTER, 1 + JITTER
    brightness = torch.empty(n, 1).uniform_(low, high, generator=generator)
    images = (images * brightness).clamp(0, 1)
    contrast = torch.empty(n, 1).uniform_(low, high, generator=generator)
    mean = images.mean(1, keepdim=True)
    return (contrast * images + (1 - contrast) * mean).clamp(0, 1)


def augmented(data, mean, std, fixed, generator):
    for xb, yb in data:
        if fixed:
            xb = (jitter(xb, generator) - mean) / std
        else:
            xb = jitter((xb - mean) / std, generator)      # BUG: jitter after normalising
        yield xb, yb


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(1)
    x, y = classification()
    x_train, y_train = x[:-HELD_OUT], y[:-HELD_OUT]
    mean, std = x_train.mean(), x_train.std()     # one mean and std, as Normalize((m,), (s,))
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    data = augmented(batches(x_train, y_train, steps), mean, std, fixed, generator)
    mon = train_watched(model, optimizer, F.cross_entropy, data, **watch)
    model.eval()
    with torch.no_grad():
        predicted = model((x[-HELD_OUT:] - mean) / std).argmax(1)
    mon.test_accuracy = round(float((predicted == y[-HELD_OUT:]).float().mean()), 3)
    return mon
