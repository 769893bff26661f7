"""A segmentation pipeline flips (and shifts) the training images at random but hands the
masks over untouched: for half the samples the mask no longer lies on the image, the model
learns a blur of the image and its mirror, and the loss stays well above what it reaches.

Reported: "Semantic segmentation augmentations are not applied to labels properly" -
https://github.com/huggingface/cookbook/issues/248 (the cookbook's train_transforms run
`albumentations_transform(image=...)` on the images only: "train time augmentations are
only applied to the input images and NOT the labels ... HorizontalFlip, ShiftScaleRotate,
and RandomResizedCrop" move the image but not the mask). Here a small fully convolutional
net segments the ink of the 8x8 digits; half the images are flipped left-right, their masks
not. Fix: transform image and mask together (`transform(image=img, mask=seg)`).

Why watch misses it (issue #10): the records hold nothing that pairs a mask with its image
(loss calls keep shapes and ranges; batch fingerprints read the inputs only), and what they
do hold looks like a healthy, harder task: a loss that falls, then levels off higher (0.32
against 0.03 for the fixed twin). Nothing measured differs except that level. A check would
have to compare targets with the inputs (a probe on a kept batch: masks that match the
mirrored image better than the image); LABELS_MISALIGNED names a sequence offset today.
"""
import torch
from torch import nn
from torch.nn import functional as F

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "Semantic segmentation augmentations are not applied to labels properly"
LINK = "https://github.com/huggingface/cookbook/issues/248"
EXPECTED = ("LABELS_MISALIGNED",)
STEPS = 150
INK = 0.5


def segmenter():
    return nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(),
                         nn.Conv2d(16, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 1, 1))


def augmented(x, steps, flip_masks, seed=0):
    """(image, mask) batches: each image flipped left-right with probability 1/2; its mask
    (ink above INK) flipped with it only when ``flip_masks``."""
    generator = torch.Generator().manual_seed(seed)
    for images, _ in batches(x, torch.zeros(len(x)), steps):
        masks = (images > INK).float()
        flip = torch.rand(len(images), generator=generator) < 0.5
        images = torch.where(flip[:, None, None, None], images.flip(-1), images)
        if flip_masks:
            masks = torch.where(flip[:, None, None, None], masks.flip(-1), masks)
        yield images, masks                      # BUG when not flip_masks: image moved only


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, _ = classification(images=True)
    model = segmenter()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    return train_watched(model, optimizer, F.binary_cross_entropy_with_logits,
                         augmented(x, steps, flip_masks=fixed), **watch)
