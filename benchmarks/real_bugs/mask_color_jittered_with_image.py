"""A segmentation dataset that runs its colour jitter on the mask as well as on the image.
The random brightness scales the mask's ones (0.6 where the factor is 0.6; the clamp keeps
factors above 1 at 1), the random contrast blends the mask with its own mean, lifting its
zeros: the binary targets become soft values that change from draw to draw. The network
learns the jittered targets - probabilities pulled towards the middle - and its masks' edges
and thresholds move with them.

Reported: "dataset transform?" -
https://github.com/akirasosa/mobile-semantic-segmentation/issues/42 ("why apply the same color
jitter transform to the mask? as for as i know, mask is just the label which stands for
pixels classification"; the maintainer: "Sorry, it's a bug. I fixed."). Here the digits'
ink masks (pixel > 0.5) predicted from the image by a small fully convolutional net with a
per-pixel BCE, brightness and contrast factors in [0.6, 1.4] drawn per sample and applied to
the image and to the mask. Fix: the colour jitter on the image only.

Measured (300 steps, 297 held-out digits, seed 0): the mean predicted probability on ink
pixels is 0.859 against the fixed twin's 0.923 and the BCE against the true masks 0.084
against 0.049; thresholded at 0.5 the masks are as good (IoU 0.945 against 0.932: the harm
is in the probabilities, which the soft targets pull towards the middle).
"""
import torch
from torch import nn
from torch.nn import functional as F

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "dataset transform?"
LINK = "https://github.com/akirasosa/mobile-semantic-segmentation/issues/42"
EXPECTED = ("TARGETS_AUGMENTED_WITH_INPUTS",)
STEPS = 300
HELD_OUT = 297
JITTER = 0.4
INK = 0.5


def jitter(images, brightness, contrast):
    """torchvision's adjust_brightness then adjust_contrast: blend and clamp to [0, 1]."""
    images = (images * brightness).clamp(0, 1)
    mean = images.mean((1, 2, 3), keepdim=True)
    return (contrast * images + (1 - contrast) * mean).clamp(0, 1)


def augmented(data, fixed, generator):
    for xb, mb in data:
        n = len(xb)
        b = torch.empty(n, 1, 1, 1).uniform_(1 - JITTER, 1 + JITTER, generator=generator)
        c = torch.empty(n, 1, 1, 1).uniform_(1 - JITTER, 1 + JITTER, generator=generator)
        xb = jitter(xb, b, c)
        if not fixed:
            mb = jitter(mb, b, c)          # BUG: the colour jitter runs on the mask too
        yield xb, mb


def segmenter():
    return nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(),
                         nn.Conv2d(16, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 1, 1))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(1)
    x, _ = classification(images=True)
    masks = (x > INK).float()
    model = segmenter()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    data = augmented(batches(x[:-HELD_OUT], masks[:-HELD_OUT], steps), fixed, generator)
    mon = train_watched(model, optimizer, F.binary_cross_entropy_with_logits, data, **watch)
    model.eval()
    with torch.no_grad():
        logits = model(x[-HELD_OUT:])
    truth = masks[-HELD_OUT:]
    predicted = (logits > 0).float()
    mon.test_iou = round(float((predicted * truth).sum() / ((predicted + truth) > 0).sum()), 3)
    mon.clean_bce = round(float(F.binary_cross_entropy_with_logits(logits, truth)), 3)
    mon.ink_probability = round(float(torch.sigmoid(logits)[truth > 0].mean()), 3)
    return mon
