"""A two-modality (RGB + depth) segmentation loader draws its random augmentation for each
modality separately - `pilRGB = self.data_augmentation(pilRGB)`, then
`pilDep = self.data_augmentation(pilDep)` - and never for the ground truth: whenever a flip
or a crop is drawn, the image, the depth map and the label map no longer lie on each other,
and the network is taught to segment pixels where the object is not.

Reported: "data augmentation applied only to images and not GT?" -
https://github.com/metahexane/ssma_pytorch/issues/1 ("the random crop/rotation/resize
applied to the input RGB and depth images in `loader.py` ... isn't applied to `modGT`.
Doesn't that cause misalignment between the GT labels and modified input images?" and
"Applying random data augmentation to each modality separately like this will also cause
mis-alignment between the RGB and depth images"; the author: "You are correct, the data
augmentation function should apply the same augmentation to all modalities. Furthermore,
the GT should indeed also be augmented, but only if the modalities undergo a spatial
transformation"). Here the 8x8 digits as the RGB modality, a blurred copy as the depth
modality, the ink as the ground truth; the loader's `data_augmentation` (applied to a
sample with probability 1/4: each of a horizontal flip, a vertical flip and a crop-and-
resize with probability 1/4) drawn per modality; a small fully convolutional net on the two
stacked modalities. Fix: draw one augmentation per sample and apply its geometric part to
both modalities and to the ground truth.

Measured harm (held-out ink IoU on 400 digits): 0.946 vs 0.971 at seed 0; seeds + 1000:
0.955 vs 0.996 (the loader augments a sample only one time in four, so most batches
stay aligned).
"""
import numpy as np
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._beginner_dataset import (INK, foreground_iou, record, segmenter,
                                                    shuffled_digits)

TITLE = "data augmentation applied only to images and not GT?"
LINK = "https://github.com/metahexane/ssma_pytorch/issues/1"
EXPECTED = ("LABELS_MISALIGNED", "TARGETS_AUGMENTED_WITH_INPUTS")
STEPS = 300
HELD_OUT = 400
BATCH = 16


def depth_of(rgb):
    """The depth modality: a blurred copy of the image (same pixel grid)."""
    return F.avg_pool2d(rgb[None], 3, stride=1, padding=1, count_include_pad=False)[0]


def draw(rng):
    """One draw of the loader's RandomApply([...], p=.25): which geometric transforms run
    (each with probability 1/4 inside), and the crop's corner."""
    if rng.uniform() >= 0.25:
        return {}
    return {"hflip": rng.uniform() < 0.25, "vflip": rng.uniform() < 0.25,
            "crop": (rng.integers(0, 3), rng.integers(0, 3)) if rng.uniform() < 0.25
            else None}


def apply(image, how):
    """``image`` (C, 8, 8) flipped and cropped-and-resized as ``how`` says."""
    if how.get("hflip"):
        image = image.flip(-1)
    if how.get("vflip"):
        image = image.flip(-2)
    if how.get("crop") is not None:
        top, left = how["crop"]
        patch = image[:, top:top + 6, left:left + 6]
        image = F.interpolate(patch[None], size=(8, 8), mode="nearest")[0]
    return image


class SsmaLoader:
    def __init__(self, images, fixed):
        self.images, self.fixed = images, fixed
        self.rng = np.random.default_rng(0)

    def sample(self, sample_id):
        rgb = self.images[sample_id]
        dep = depth_of(rgb)
        gt = (rgb > INK).float()
        if self.fixed:
            how = draw(self.rng)
            rgb, dep, gt = apply(rgb, how), apply(dep, how), apply(gt, how)
        else:                                   # BUG: a draw per modality, none for the GT
            rgb = apply(rgb, draw(self.rng))
            dep = apply(dep, draw(self.rng))
        return torch.cat([rgb, dep]), gt

    def sample_batch(self, batch_size):
        ids = self.rng.choice(len(self.images), batch_size)
        mods, gts = zip(*(self.sample(int(i)) for i in ids))
        return torch.stack(mods), torch.stack(gts)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, _ = shuffled_digits()
    loader = SsmaLoader(x[:-HELD_OUT], fixed)
    model = segmenter(1, channels=2)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            mods, gt = loader.sample_batch(BATCH)
            optimizer.zero_grad()
            loss = F.binary_cross_entropy_with_logits(model(mods), gt)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    held = x[-HELD_OUT:]
    held_mods = torch.cat([held, torch.stack([depth_of(h) for h in held])], dim=1)
    record(__name__, foreground_iou(model, held_mods, (held[:, 0] > INK).float()))
    return mon
