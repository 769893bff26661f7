"""Per-pixel class scores computed as one row per pixel, (B, H * W, C), turned into the
(B, C, H, W) maps a segmentation loss wants with a plain ``view``: memory order is pixel
by pixel, so class map c at pixel p is filled with some other pixel's score for some other
class. The loss then grades each pixel with numbers computed from elsewhere.

Reported: "code error" - https://github.com/yihong-97/Source-free-IAPC/issues/5 (in a
source-free domain-adaptation segmenter, "clu_probabilitys shape is [b,h*w,c], we cant use
func view directly to make the shape change to [b,c,h,w]. We first change the shape from
[b,h*w,c] to [b,h,w,c], and then we change the shape to [b,c,h,w]", shown with
``torch.allclose`` giving False; the authors: "Indeed, there was a bug in our code" and
updated it). Here a small segmenter embeds each pixel of the 8x8 digits with two conv
layers, reads the (B, H * W, 16) pixel rows with a Linear to 3 class scores (background,
faint ink, dark ink) and views them as (B, 3, 8, 8) for ``F.cross_entropy``. Fix:
``scores.view(B, H, W, C).permute(0, 3, 1, 2)``.

Measured (150 steps, the 397 held-out digits): the bug labels 0.60 of the pixels right
against 0.98 for the fixed twin.
"""
import torch
from torch import nn
from torch.nn import functional as F

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "code error"
LINK = "https://github.com/yihong-97/Source-free-IAPC/issues/5"
EXPECTED = ("RESHAPE_USED_AS_TRANSPOSE",)
STEPS = 150
HELD_OUT = 397
CLASSES = 3


class PixelRowSegmenter(nn.Module):
    def __init__(self, permute):
        super().__init__()
        self.permute = permute
        self.embed = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(),
                                   nn.Conv2d(16, 16, 3, padding=1), nn.ReLU())
        self.classify = nn.Linear(16, CLASSES)

    def forward(self, images):
        features = self.embed(images)                           # (B, 16, H, W)
        b, d, h, w = features.shape
        rows = features.permute(0, 2, 3, 1).reshape(b, h * w, d)  # one row per pixel
        scores = self.classify(rows)                            # (B, H * W, C)
        if self.permute:
            return scores.view(b, h, w, CLASSES).permute(0, 3, 1, 2)
        return scores.view(b, CLASSES, h, w)                    # BUG: rows read as maps


def pixel_classes(images):
    """0 background, 1 faint ink, 2 dark ink, per pixel: (B, H, W)."""
    return (images[:, 0] > 0.2).long() + (images[:, 0] > 0.6).long()


def pixel_batches(x, steps):
    for images, _ in batches(x, torch.zeros(len(x)), steps):
        yield images, pixel_classes(images)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, _ = classification(images=True)
    model = PixelRowSegmenter(permute=fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    mon = train_watched(model, optimizer, F.cross_entropy, pixel_batches(x[:-HELD_OUT], steps),
                        **watch)
    with torch.no_grad():
        held = x[-HELD_OUT:]
        right = model(held).argmax(1) == pixel_classes(held)
        mon.pixel_accuracy = round(float(right.float().mean()), 3)
    return mon
