"""A multi-class segmentation config sets the loss's ignore value to 0, the background
class, in the belief that background "does not need to be learned". The model still has a
background output, but no background pixel ever reaches the loss: it learns to tell the
four foreground classes apart and nothing else, so at test time every background pixel goes
to whichever foreground class scores higher there. The training loss falls as nicely as
the fixed twin's (the ignored pixels are not in it); only the predictions are wrong.

Reported: "Question about semantic segmentation." -
https://github.com/facebookresearch/Mask2Former/issues/179 (5 classes, 0 background,
``IGNORE_VALUE: 0``; the predictions contain no background and "category 1 contains both
background and original category 1 areas". The answer: "The network is not trained to
segment the background since IGNORE_VALUE is set to the background class ... set the
IGNORE_VALUE to a class outside the scope of your labels"). Here a small fully
convolutional net segments the 8x8 digits into background (no ink) and four ink classes
(the digit's label mod 4), 5 outputs, cross-entropy with ``ignore_index=0``. Fix: ignore
a value no class uses (255, the default of most configs), so background is learned.

Measured (200 steps, 297 held-out digits, pixel accuracy): the bug's 0.25 (its background
pixels, about 70% of all, right 0% of the time), the fixed twin's 0.83 (background right
99.5%) - both training losses fall.
"""
import torch
from torch import nn
from torch.nn import functional as F

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "Question about semantic segmentation."
LINK = "https://github.com/facebookresearch/Mask2Former/issues/179"
EXPECTED = ("IGNORE_INDEX_ON_MAJORITY_CLASS",)
STEPS = 200
HELD_OUT = 297
INK = 0.3
CLASSES = 5


def segmenter():
    return nn.Sequential(nn.Conv2d(1, 32, 3, padding=1), nn.ReLU(),
                         nn.Conv2d(32, 32, 3, padding=1), nn.ReLU(),
                         nn.Conv2d(32, 32, 3, padding=1), nn.ReLU(), nn.Conv2d(32, CLASSES, 1))


def masks(images, labels):
    """Per pixel: 0 where there is no ink, 1 + (digit mod 4) on the ink."""
    ink = images[:, 0] > INK
    return torch.where(ink, 1 + (labels % 4)[:, None, None],
                       torch.zeros_like(ink, dtype=torch.long))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification(images=True)
    x_train, y_train = x[:-HELD_OUT], y[:-HELD_OUT]
    ignore = 255 if fixed else 0                 # BUG when 0: the background class is ignored
    model = segmenter()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    data = ((xb, masks(xb, yb)) for xb, yb in batches(x_train, y_train, steps))
    mon = train_watched(model, optimizer,
                        lambda out, target: F.cross_entropy(out, target, ignore_index=ignore),
                        data, **watch)
    with torch.no_grad():
        target = masks(x[-HELD_OUT:], y[-HELD_OUT:])
        predicted = model(x[-HELD_OUT:]).argmax(1)
    mon.pixel_accuracy = round(float((predicted == target).float().mean()), 3)
    background = target == 0
    mon.background_accuracy = round(float((predicted[background] == 0).float().mean()), 3)
    return mon
