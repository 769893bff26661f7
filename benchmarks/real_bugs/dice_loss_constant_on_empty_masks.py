"""A soft Dice loss with its smoothing term in the denominator only,
``1 - 2 * overlap / (areas + eps)``: on an image whose target mask is empty the overlap is 0
whatever the model predicts, so the loss is exactly 1 and its gradient exactly 0. Empty
images teach the model nothing; it never learns to leave them blank and paints the
foreground it learned on the other images onto them too.

Reported: "fix bug of dice loss: loss always 1 if empty target" -
https://github.com/open-mmlab/mmocr/pull/408 (merged; the same formula is questioned in
"Why dice smoothing only applied in denominator?", aim-uofa/AdelaiDet#610: "This causes all
zero-input predictions to always maximize the loss even if it's completely correct"). Here
a per-pixel segmenter on 8x8 images: half are digits whose target is their strokes, half
scattered bright specks with nothing to find (an empty mask), as a segmentation set keeps
negative images. Fix: smooth the numerator too,
``1 - (2 * overlap + eps) / (areas + eps)``, so that an empty prediction of an empty mask
scores 0.

Measured (200 steps, 297 held-out images): on the held-out images with empty masks the bug
marks 45% of the pixels as foreground (every lit speck), the fixed twin none (0.0%); on the
digits both reach a Dice of 0.74-0.75.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, mlp, train_watched

TITLE = "fix bug of dice loss: loss always 1 if empty target"
LINK = "https://github.com/open-mmlab/mmocr/pull/408"
EXPECTED = ("LOSS_CONSTANT_ON_EMPTY_TARGETS",)
STEPS = 200
HELD_OUT = 297
EPS = 1.0      # [convention] the usual +1 of a soft Dice
SPECKS = 0.3   # share of lit pixels in an image with nothing to find


def stroke_masks(seed=0):
    """Pixels (N, 64) in [0, 1] and 0/1 masks: odd rows are digits whose mask is their strokes
    (pixel > 0.5), even rows scattered bright specks with nothing to find (an empty mask)."""
    x, _ = classification()
    generator = torch.Generator().manual_seed(seed)
    specks = (torch.rand(x.shape, generator=generator) < SPECKS).float()
    specks = specks * torch.rand(x.shape, generator=generator)
    x = x.clone()
    x[0::2] = specks[0::2]
    masks = (x > 0.5).float()
    masks[0::2] = 0
    return x, masks


def dice_loss(fixed):
    def loss(logits, masks):
        probabilities = torch.sigmoid(logits)
        overlap = (probabilities * masks).sum(1)
        areas = probabilities.sum(1) + masks.sum(1)
        if fixed:
            return (1 - (2 * overlap + EPS) / (areas + EPS)).mean()
        return (1 - 2 * overlap / (areas + EPS)).mean()        # BUG: eps only below
    return loss


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, masks = stroke_masks()
    model = mlp(64, 128, 64)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    mon = train_watched(model, optimizer, dice_loss(fixed),
                        batches(x[:-HELD_OUT], masks[:-HELD_OUT], steps), **watch)
    with torch.no_grad():
        found = (model(x[-HELD_OUT:]) > 0).float()
        held = masks[-HELD_OUT:]
        empty = held.sum(1) == 0
        hit = (found * held).sum(1)
        dice = 2 * hit / (found.sum(1) + held.sum(1)).clamp(min=1)
    mon.false_pixels = round(float(found[empty].mean()), 3)
    mon.dice_strokes = round(float(dice[~empty].mean()), 3)
    return mon
