"""A keypoint regressor trained with a random horizontal flip that mirrors the image but not
the keypoint: the flipped picture shows the keypoint at x' = W - 1 - x while its label still
says x. Half of the training pairs therefore point at the mirror image of where the
keypoint is; a flipped marker looks like any other, so the best the network can do is the
average of the two, and every predicted x is pulled toward the image's middle column. The
loss falls (to the variance the wrong half leaves) and nothing errors.

Reported: "Keypoint transformation while doing fliplr" -
https://github.com/aleju/imgaug/issues/769 (an image and a keypoint sent through
``iaa.Sequential([iaa.Fliplr(0.5), iaa.Affine(rotate=10, scale=...)])``: rotation and scale
moved the keypoint, but after a flip its x was unchanged where it should have been the
image width minus the old x; others in the thread saw the same with imgaug 0.4.0). Here:
20x20 pictures of an arrow whose tip (the keypoint) is anywhere in the frame
(benchmarks/real_bugs/_pose.py), a small convolutional regressor on coordinates normalised
to [-1, 1], MSE, flip probability 0.5. Fix: mirror the keypoint with the image, x ->
W - 1 - x.

Measured (300 Adam steps, batch 32, 2,000 training pictures, 500 held out, unflipped):
held-out mean tip error 4.08 pixels for the bug against 0.48 for the fixed twin at seed 0
(PCK within 2 pixels 0.23 against 1.00); seeds shifted by 1000, 3.69 against 0.43 (PCK
0.30 against 1.00).
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._keypoints import (SIZE, CoordinateNet, index_batches, to_pixels,
                                             to_unit)
from benchmarks.real_bugs._pose import markers, mean_error, pck

TITLE = "Keypoint transformation while doing fliplr"
LINK = "https://github.com/aleju/imgaug/issues/769"
EXPECTED = ("LABELS_MISALIGNED", "KEYPOINTS_NOT_TRANSFORMED_WITH_IMAGE")
STEPS = 300
BATCH = 32
TRAIN, HELD_OUT = 2000, 500
LR = 3e-3


def augment(images, tips, fixed):
    """A horizontal flip with probability 0.5."""
    images, tips = images.clone(), tips.clone()
    mirrored = torch.rand(len(images)) < 0.5
    images[mirrored] = images[mirrored].flip(-1)
    if fixed:
        tips[mirrored, :, 0] = SIZE - 1 - tips[mirrored, :, 0]
    return images, tips                   # BUG (fixed=False): the tip keeps its old x


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    images, tips = markers(TRAIN + HELD_OUT, seed=0)
    model = CoordinateNet(1)
    optimizer = torch.optim.Adam(model.parameters(), lr=LR)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(TRAIN, steps, BATCH, seed=0):
            xb, tb = augment(images[index], tips[index], fixed)
            optimizer.zero_grad()
            loss = torch.nn.functional.mse_loss(model(xb), to_unit(tb))
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        found = to_pixels(model(images[TRAIN:]))
    mon.held_out_error_pixels = mean_error(found, tips[TRAIN:])
    mon.held_out_pck = pck(found, tips[TRAIN:])
    return mon
