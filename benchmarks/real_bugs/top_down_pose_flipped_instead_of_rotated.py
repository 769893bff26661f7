"""A keypoint augmentation meant to turn pictures around (a half turn keeps a left ear a left
ear) that mirrors them instead, moving the keypoints' x with the image and keeping every
joint in its slot. A mirror turns each right joint into a left one: after it, the
figure's right shoulder is drawn where its left one belongs and is still supervised in
the "right shoulder" map. A mirrored figure looks like any other, so each left/right map
learns to light up on both sides and its argmax lands on the wrong side about half the
time. The loss falls; nothing errors.

Reported: "bug fix in left-right/top-down augmentation pipeline" -
https://github.com/paninski-lab/lightning-pose/pull/287 (lightning-pose's ``dlc-lr`` and
``dlc-top-down`` augmentation pipelines were "erroneously flipping the images/keypoints
rather than rotating them": for a top-down view of an animal the flip leaves the
left/right ear keypoints on the wrong sides of the head; the fix rotates instead, and a
user answered that it "might explain" the left/right side collapse they had seen). Here:
20x20 synthetic upper bodies (head, shoulders, hands; benchmarks/real_bugs/_keypoints.py),
a small dilated fully convolutional heatmap network, MSE, the augmentation on half of each
batch. Fix: a half turn (both axes reversed, keypoints (W - 1 - x, H - 1 - y)) instead of
the mirror.

Measured (300 Adam steps, batch 32, 2,000 training figures, 500 held out): held-out mean
argmax error 3.84 pixels for the bug against 1.21 for the fixed twin at seed 0 (PCK within
2 pixels 0.59 against 0.93; left/right joints nearer the other side's joint in 52% of
cases against 8%); seeds shifted by 1000, 3.97 against 0.63 (PCK 0.58 against 0.98; 52%
against 2%).
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._keypoints import (FIGURE_MIRROR, SIZE, HeatmapNet, argmax_points,
                                             figures, heatmaps, index_batches)
from benchmarks.real_bugs._pose import mean_error, pck

TITLE = "bug fix in left-right/top-down augmentation pipeline"
LINK = "https://github.com/paninski-lab/lightning-pose/pull/287"
EXPECTED = ("FLIPPED_KEYPOINTS_NOT_SWAPPED",)
STEPS = 300
BATCH = 32
TRAIN, HELD_OUT = 2000, 500
LR = 3e-3


def augment(images, points, fixed):
    """With probability 0.5: turn the picture half a turn (fixed) or mirror it (the bug);
    the keypoints follow the image, each joint kept in its slot."""
    images, points = images.clone(), points.clone()
    chosen = torch.rand(len(images)) < 0.5
    if fixed:
        images[chosen] = images[chosen].flip(-1).flip(-2)
        points[chosen] = SIZE - 1 - points[chosen]
    else:                  # BUG: a mirror, which turns every right joint into a left one
        images[chosen] = images[chosen].flip(-1)
        points[chosen, :, 0] = SIZE - 1 - points[chosen, :, 0]
    return images, points


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    images, points = figures(TRAIN + HELD_OUT, seed=0)
    model = HeatmapNet(5)
    optimizer = torch.optim.Adam(model.parameters(), lr=LR)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(TRAIN, steps, BATCH, seed=0):
            xb, pb = augment(images[index], points[index], fixed)
            optimizer.zero_grad()
            loss = torch.nn.functional.mse_loss(model(xb), heatmaps(pb))
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        found = argmax_points(model(images[TRAIN:]))
    true = points[TRAIN:]
    mon.held_out_error_pixels = mean_error(found, true)
    mon.held_out_pck = pck(found, true)
    partner = true[:, FIGURE_MIRROR]
    sided = [1, 2, 3, 4]
    other = ((found - partner).norm(dim=-1) < (found - true).norm(dim=-1))[:, sided]
    mon.held_out_other_side = other.float().mean().item()
    return mon
