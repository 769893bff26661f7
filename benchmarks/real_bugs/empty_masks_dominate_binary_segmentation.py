"""A binary defect segmenter trained mostly on images with no defect at all: nineteen masks
in twenty are empty, the few defect pixels weigh nothing in the averaged loss, and the network
learns to answer "no defect" for every pixel.

Reported: "Binary model always predict same label" -
https://github.com/open-mmlab/mmsegmentation/issues/2579 ("I was using images with all
pixel labeled as 0 and some containing spots of labels 1 ... the model may decide that
always predicting 0 is a good strategy. The fix for now has been to remove the 'no
anomaly' images, and it seems to work"). Here noisy 16x16 images, one in twenty holding a
faint 3x3 spot that the mask marks; a small fully convolutional net with a two-class
cross-entropy.
Fix: train on the images that hold a defect (the report's fix).

Measured (600 steps, 128 held-out defect images, ``mon.foreground_iou``): the bug's
defect IoU is 0.00 (no pixel is ever called a defect), the fixed twin's 0.78; with the seeds
shifted by 1000, 2000, 3000 the bug's is 0.00, 0.21, 0.10 (one defect image in ten instead
of twenty: 0.61, 0.54, 0.56 there, the model finds the spots late).
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd

TITLE = "Binary model always predict same label"
LINK = "https://github.com/open-mmlab/mmsegmentation/issues/2579"
EXPECTED = ("RARE_POSITIVES_NEVER_PREDICTED", "RARE_CLASS_NEVER_PREDICTED")
STEPS = 600
SIZE = 16
BATCH_SIZE = 16
DEFECT_SHARE = 0.05


def inspection_images(count, rng, defect_share):
    """``count`` noisy (1, SIZE, SIZE) images and their 0/1 masks; a share of them hold a
    faint 3x3 defect spot."""
    masks = np.zeros((count, SIZE, SIZE), np.int64)
    for i in np.flatnonzero(rng.random(count) < defect_share):
        r, c = rng.integers(0, SIZE - 2, 2)
        masks[i, r:r + 3, c:c + 3] = 1
    images = masks[:, None] * 0.8 + rng.normal(0, 0.4, (count, 1, SIZE, SIZE))
    return torch.from_numpy(images.astype(np.float32)), torch.from_numpy(masks)


def segmenter():
    return nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(),
                         nn.Conv2d(16, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 2, 1))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    model = segmenter()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    # BUG (fixed=False): the defect-free images, nineteen in twenty, stay in the training set
    share = 1.0 if fixed else DEFECT_SHARE
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            images, masks = inspection_images(BATCH_SIZE, rng, share)
            optimizer.zero_grad()
            loss = loss_fn(model(images), masks)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        images, masks = inspection_images(128, np.random.default_rng(1), 1.0)
        found = model(images).argmax(1) == 1
        truth = masks == 1
        mon.foreground_iou = round(float((found & truth).sum() / (found | truth).sum()), 3)
    return mon
