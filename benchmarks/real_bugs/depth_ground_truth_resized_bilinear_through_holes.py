"""A first monocular depth script resizes the dataset's ground-truth depth maps to the
network's size with bilinear interpolation, the way it resizes the images, then keeps the
pixels whose depth is above 0 (the sensor stores "no measurement" as 0). Bilinear
resizing averages each hole's zeros into the valid depths around it: every pixel on a
hole's border comes out somewhere between 0 and its true depth, is above 0, and so passes
the mask as a measurement. The network is trained towards depths that are too near around
every hole; as holes are sensor artefacts it cannot see, it learns to predict everything
too near. The loss falls as usual.

Reported: "Noise point cloud from bi-linear interpolation" -
https://github.com/diode-dataset/diode-devkit/issues/18 ("if the incomplete depth map is
resized with bi-linear interpolation, the pixels around the holes would be resampled with
valid depth and zeros-values in the hole, making the new depth vary from 0 to the ground
truth"). Here: synthetic scenes made at 32x32 whose brightness cues their smooth depth
(1-5 m, ``_depth306.scenes``), 20% of each raw depth map missing in blob-shaped holes
stored as 0, images and depth maps resized to 16x16 for training, a small fully
convolutional network with a softplus output, Adam, squared error over the pixels with
depth > 0.
Fix: resize the depth map with nearest-neighbour interpolation (no value is mixed with a
hole's zero; the mask stays exact).

Measured (300 steps, batch 16; held-out absolute relative error against the true dense
depth at 16x16, 256 scenes): 0.131 with the bug, 0.080 fixed; seeds + 1000: 0.143 vs
0.089.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._depth306 import DepthNet, abs_rel, holes, scenes
from benchmarks.real_bugs._depth_flow import batches

TITLE = "Noise point cloud from bi-linear interpolation"
LINK = "https://github.com/diode-dataset/diode-devkit/issues/18"
EXPECTED = ("UNLABELLED_KEYPOINTS_TRAINED",)
STEPS = 300
RAW, SIZE = 32, 16


def dataset(n, fixed):
    """(image, depth target with 0 = no measurement), both resized to SIZE, and the true
    dense depth at SIZE (for scoring only)."""
    image, depth = scenes(n, RAW)
    raw = depth * holes(n, RAW)                        # the sensor's map: 0 in the holes
    image = F.interpolate(image, size=(SIZE, SIZE), mode="bilinear", align_corners=False)
    if fixed:
        target = F.interpolate(raw, size=(SIZE, SIZE), mode="nearest")
    else:                                              # BUG: zeros averaged into depths
        target = F.interpolate(raw, size=(SIZE, SIZE), mode="bilinear", align_corners=False)
    truth = F.interpolate(depth, size=(SIZE, SIZE), mode="bilinear", align_corners=False)
    return image, target, truth


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    image, target, _ = dataset(1024, fixed)
    test_image, _, test_truth = dataset(256, fixed)
    model = DepthNet()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in batches(len(image), steps):
            gt = target[index]
            valid = gt > 0                             # "no measurement" is stored as 0
            pred = model(image[index])
            loss = F.mse_loss(pred[valid], gt[valid])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        mon.held_out_abs_rel = abs_rel(model(test_image), test_truth)
    return mon
