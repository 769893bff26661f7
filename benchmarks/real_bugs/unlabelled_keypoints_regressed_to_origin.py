"""A keypoint regressor trained on partially labelled images: joints nobody annotated are
stored COCO-style as (0, 0) with visibility 0, and the loss is a plain MSE over every
joint, visibility ignored. About a third of each joint's targets are then the image's top-
left corner, on images that look no different from the labelled ones, so the network
learns to pull every prediction towards the corner (the MSE optimum is the mixture's
mean). The loss falls and settles; nothing errors.

Reported: "Is it possible that the number of keypoints in every samples is not same?" -
https://github.com/open-mmlab/mmpose/issues/394 (the reporter's samples "only labelled a
portion of all keypoints" and asked whether the loss must be changed "such that only
keypoints that have ground truth give loss values"; the maintainer: leave the unlabelled
keypoints as [0, 0, 0] and set use_target_weight=True, so "these keypoints will be ignored
and no loss will be back-propagated" - without the target weight they are trained as
real targets at (0, 0)). Here: 20x20 synthetic upper bodies, five joints, each left
unlabelled with probability 0.35, a small CNN regressing normalised coordinates (the
corner is (-1, -1)).
Fix: weight each joint's error by its visibility (mmpose's target weight: prediction and
target both multiplied by it), so an unlabelled joint gives no loss and no gradient.

Measured (400 Adam steps, batch 32, 2,000 training figures, 500 fully labelled held-out
figures, seed 0): held-out mean keypoint error 4.42 pixels for the bug, 0.33 for the fixed
twin.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._keypoints import (CoordinateNet, figures, index_batches, to_pixels,
                                             to_unit)

TITLE = "Is it possible that the number of keypoints in every samples is not same?"
LINK = "https://github.com/open-mmlab/mmpose/issues/394"
EXPECTED = ("UNLABELLED_KEYPOINTS_TRAINED",)
STEPS = 400
BATCH = 32
TRAIN, HELD_OUT = 2000, 500
LR = 2e-3
UNLABELLED = 0.35


def keypoint_loss(predicted, target, visible, fixed):
    if fixed:                         # the target weight: unlabelled joints give no loss
        weight = visible[..., None]
        return F.mse_loss(predicted * weight, target * weight)
    return F.mse_loss(predicted, target)          # BUG: unlabelled (0, 0) joints trained


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    images, points = figures(TRAIN + HELD_OUT, seed=0)
    visible = (torch.rand(TRAIN, points.shape[1]) >= UNLABELLED).float()
    stored = points[:TRAIN] * visible[..., None]               # unlabelled: stored as (0, 0)
    targets = to_unit(stored)
    model = CoordinateNet(points.shape[1])
    optimizer = torch.optim.Adam(model.parameters(), lr=LR)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(TRAIN, steps, BATCH, seed=0):
            optimizer.zero_grad()
            loss = keypoint_loss(model(images[index]), targets[index], visible[index], fixed)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        found = to_pixels(model(images[TRAIN:]))
    mon.held_out_error = (found - points[TRAIN:]).norm(dim=-1).mean().item()
    return mon
