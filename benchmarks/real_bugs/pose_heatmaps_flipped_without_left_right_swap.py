"""A heatmap pose network (one Gaussian target map per joint, MSE) trained with a random
horizontal flip that mirrors the image and the keypoints' x but leaves every joint in its
slot: after the flip the person's right shoulder is drawn where their left one was and is
still supervised in the "right shoulder" map. A mirrored frontal figure looks like any
other, so each left/right map learns to light up at both sides' joints; at test time its
argmax lands on the wrong side about half the time. The loss falls; nothing errors.

Reported: "Fix R/L bug in augmentation pipeline" -
https://github.com/robertklee/COCO-Human-Pose/pull/29 ("When we perform R/L augmentation,
a right wrist becomes a left wrist but we do not account for this", with a picture of the
flipped ground truth labelled on the wrong side; the PR adds a custom flip that reshuffles
the keypoint array). Here: 20x20 synthetic upper bodies (head, shoulders, hands) facing the
camera, a small dilated fully convolutional heatmap network, flip probability 0.5.
Fix: after the flip, swap each left joint with its right partner (its map and keypoint).

Measured (300 Adam steps, batch 32, 2,000 training figures, 500 held out, seed 0):
held-out PCK (argmax within 2 pixels) 0.59 for the bug, 1.00 for the fixed twin; the bug's
left/right joints land nearer the other side's joint in 52% of held-out cases (the twin's
0%).
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._keypoints import (FIGURE_MIRROR, SIZE, HeatmapNet, argmax_points,
                                             figures, heatmaps, index_batches)

TITLE = "Fix R/L bug in augmentation pipeline"
LINK = "https://github.com/robertklee/COCO-Human-Pose/pull/29"
EXPECTED = ("FLIPPED_KEYPOINTS_NOT_SWAPPED",)
STEPS = 300
BATCH = 32
TRAIN, HELD_OUT = 2000, 500
LR = 3e-3
PCK_PIXELS = 2.0


def flip(images, keypoints, fixed):
    """Mirror the images and the keypoints' x (pixels)."""
    images = images.flip(-1)
    keypoints = keypoints.clone()
    keypoints[..., 0] = SIZE - 1 - keypoints[..., 0]
    if fixed:
        keypoints = keypoints[:, FIGURE_MIRROR]       # a mirrored right hand is a left hand
    return images, keypoints                          # BUG (fixed=False): slots kept


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    images, points = figures(TRAIN + HELD_OUT, seed=0)
    model = HeatmapNet(5)
    optimizer = torch.optim.Adam(model.parameters(), lr=LR)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(TRAIN, steps, BATCH, seed=0):
            xb, pb = images[index].clone(), points[index].clone()
            mirrored = torch.rand(len(xb)) < 0.5
            xb[mirrored], pb[mirrored] = flip(xb[mirrored], pb[mirrored], fixed)
            optimizer.zero_grad()
            loss = torch.nn.functional.mse_loss(model(xb), heatmaps(pb))
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        found = argmax_points(model(images[TRAIN:]))
    true = points[TRAIN:]
    mon.held_out_pck = ((found - true).norm(dim=-1) <= PCK_PIXELS).float().mean().item()
    partner = true[:, FIGURE_MIRROR]
    sided = [1, 2, 3, 4]
    on_other_side = ((found - partner).norm(dim=-1) < (found - true).norm(dim=-1))[:, sided]
    mon.held_out_other_side = on_other_side.float().mean().item()
    return mon
