"""A binary segmenter with ONE output channel trained with a softmax cross-entropy: the
softmax runs over the channel axis, which holds a single score per pixel, so every pixel's
probability is exactly 1, its log 0, and the loss is 0 for any output. Nothing is learned.

Reported: "Binary segmentation does not work well because the loss is always zero.
(Reproduction code available)" - https://github.com/open-mmlab/mmsegmentation/issues/2201
(the reporter set ``out_channels=1`` for two classes and kept the softmax cross-entropy;
the loss stayed at zero; with two output channels it learned, and a maintainer's fix for
one channel was ``use_sigmoid=True``, a binary cross-entropy on the single score). Here a
small fully convolutional net segments noisy 16x16 images holding one bright rectangle,
its single-channel scores given to ``F.cross_entropy`` with the 0/1 mask as the target's
probabilities. Fix: ``F.binary_cross_entropy_with_logits`` on the single channel.

Measured (150 steps, 128 held-out scenes): the bug's loss is 0 (or -0) on every step and its
foreground IoU 0.13 (the untrained net's chance overlap) against 0.92 for the fixed twin.
"""
import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

TITLE = ("Binary segmentation does not work well because the loss is always zero. "
         "(Reproduction code available)")
LINK = "https://github.com/open-mmlab/mmsegmentation/issues/2201"
EXPECTED = ("SOFTMAX_OVER_ONE_UNIT",)
STEPS = 150
SIZE = 16
BATCH_SIZE = 16


def scenes(steps, seed=0):
    """``steps`` batches of noisy (B, 1, SIZE, SIZE) images and their 0/1 masks (float,
    (B, 1, SIZE, SIZE)): one rectangle of 3 to 9 pixels a side per image."""
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        masks = np.zeros((BATCH_SIZE, 1, SIZE, SIZE), np.float32)
        for i in range(BATCH_SIZE):
            w, h = rng.integers(3, 10, 2)
            x1, y1 = rng.integers(0, SIZE - w + 1), rng.integers(0, SIZE - h + 1)
            masks[i, 0, y1:y1 + h, x1:x1 + w] = 1
        images = masks * 0.6 + rng.normal(0, 0.3, masks.shape).astype(np.float32)
        yield torch.from_numpy(images), torch.from_numpy(masks)


def segmenter():
    return nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(),
                         nn.Conv2d(16, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 1, 1))


def run(fixed=False, steps=STEPS, **watch):
    import nndebug as nd
    torch.manual_seed(0)
    model = segmenter()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for images, masks in scenes(steps):
            optimizer.zero_grad()
            scores = model(images)                       # (B, 1, H, W): one channel
            if fixed:
                loss = F.binary_cross_entropy_with_logits(scores, masks)
            else:
                # BUG: a softmax over the single channel is 1 everywhere: the loss is 0
                loss = F.cross_entropy(scores, masks)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        images, masks = (torch.cat(parts) for parts in zip(*scenes(8, seed=1)))
        found = (model(images) > 0).float()
        union = ((found + masks) > 0).float().sum()
        mon.iou = round(float((found * masks).sum() / union), 3)
    return mon
