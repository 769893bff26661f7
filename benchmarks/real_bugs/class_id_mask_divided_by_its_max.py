"""Class-id masks divided by their own maximum (as the images are scaled) and then cast to
long for CrossEntropyLoss. The mask files hold ids 1 (background), 2 (filled rectangle)
and 3 (outline); ids/max truncate to 0 except the image's largest id, which becomes 1. So
in a scene with outlines the outlines are class 1 and the filled rectangles background,
in a scene without outlines the filled rectangles are class 1, and class 2 never occurs:
the model learns a muddle of "some object" as class 1 and never predicts class 2.
Nothing errors - the out-of-range crash the raw ids gave is gone.

Reported: "About the multi-class problem" -
https://github.com/milesial/Pytorch-UNet/issues/174 (a 4-class mask with labels 1..4 and
n_classes=3 hit the CUDA assert `t >= 0 && t < n_classes`; "as the consequence, I have
the mask divide img_trans.max() as the image do, thus the label is [0.25, 0.5, 0.75, 1]",
training ran but the model "predicts a all [0.25] mask image"; the maintainer: set
n_classes to the number of classes, labels should be 0..n-1). Here a first-tutorial U-Net
(benchmarks/real_bugs/_beginner_unet.py) with 3 outputs on 16x16 noisy scenes, Adam.
Fix: ids minus 1 (0..2), no division.

Measured (300 steps, batch 16, 256 held-out scenes; mean IoU of classes 1 and 2 against
the true ids): seed 0, 0.215 for the bug against 0.695 for the fixed twin; seeds shifted
by 1000, 0.225 against 0.711.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._beginner_unet import TutorialUNet, batches, mean_iou, scenes

TITLE = "About the multi-class problem"
LINK = "https://github.com/milesial/Pytorch-UNet/issues/174"
EXPECTED = ("OUTPUT_WIDER_THAN_CLASSES", "RARE_CLASS_NEVER_PREDICTED")
STEPS = 300


def targets(stored, fixed):
    """``stored`` holds the ids as the mask files do: 1 background, 2 filled, 3 outline."""
    if fixed:
        return stored - 1                                    # ids 0..2
    # BUG: each mask is divided by its own maximum "as the image is", then cast to long
    scaled = stored.float() / stored.flatten(1).amax(1).view(-1, 1, 1)
    return scaled.long()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    images, labels = scenes(1024, seed=0)
    held_images, held_labels = scenes(256, seed=1)
    train_targets = targets(labels + 1, fixed)
    model = TutorialUNet(out=3)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(images, train_targets, steps):
            loss = criterion(model(xb), yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        mon.held_out_mean_iou = mean_iou(model(held_images).argmax(1), held_labels, 3)
    return mon
