"""The image is divided by 255 in the Dataset and then passed through albumentations'
``A.Normalize()``, whose defaults (mean 0.485, std 0.229, max_pixel_value 255) divide by
255 once more: every input pixel becomes about -2.118 plus a variation of at most 0.007.
The images are nearly constant, the U-Net (no normalisation layers, as in the tutorial)
cannot see the shapes, and it settles on predicting the base rate: no pixel is called
foreground. Nothing errors; the loss falls to the entropy of the base rate.

Reported: "cannot run awesome-ai-tutorials/Computer Vision /001 - unet/" -
https://github.com/FrancoisPorcher/awesome-ai-tutorials/issues/3 (the BCE target was not in
0..1; dividing the images and masks read by cv2.imread by 255 in the Dataset let it train
but "it outputs poor predictions"; the reporter then divided only after the augmentation
and switched to A.Normalize(mean=0.0, std=1.0), and "the problem was solved"). Here a
first-tutorial U-Net (benchmarks/real_bugs/_beginner_unet.py) on 16x16 noisy scenes
stored as 0..255 intensities, one foreground class, BCEWithLogitsLoss, Adam. Fix: scale
once (Normalize alone).

Measured (300 steps, batch 16, 256 held-out scenes; foreground IoU of sigmoid > 0.5):
seed 0, 0.000 for the bug against 0.942 for the fixed twin; seeds shifted by 1000, 0.000
against 0.944.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._beginner_unet import TutorialUNet, batches, mean_iou, pixels, scenes

TITLE = "cannot run awesome-ai-tutorials/Computer Vision /001 - unet/"
LINK = "https://github.com/FrancoisPorcher/awesome-ai-tutorials/issues/3"
EXPECTED = ("UNNORMALIZED_INPUTS", "CONSTANT_INPUTS")
STEPS = 300
MEAN, STD, MAX_PIXEL = 0.485, 0.229, 255.0   # A.Normalize()'s defaults (one channel here)


def normalize(image):
    """albumentations' Normalize: (image - mean * max_pixel) / (std * max_pixel)."""
    return (image - MEAN * MAX_PIXEL) / (STD * MAX_PIXEL)


def prepare(images, fixed):
    image = pixels(images)                   # 0..255, as cv2.imread gives them
    if not fixed:
        image = image / 255.0                # BUG: scaled here, then again by Normalize
    return normalize(image)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    images, labels = scenes(1024, binary=True, seed=0)
    held_images, held_labels = scenes(256, binary=True, seed=1)
    images, held_images = prepare(images, fixed), prepare(held_images, fixed)
    model = TutorialUNet(out=1)
    criterion = nn.BCEWithLogitsLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(images, labels, steps):
            loss = criterion(model(xb)[:, 0], yb.float())
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        probability = torch.sigmoid(model(held_images)[:, 0])
        mon.held_out_foreground_iou = mean_iou((probability > 0.5).long(), held_labels, 2)
    return mon
