"""A stereo network trained on pairs downsampled to half resolution, with the ground-truth
disparity map downsampled the same way - its size halved, its VALUES left as they were.
Disparity is a distance in pixels: halving the image halves every disparity. The targets
are now twice the true shift between the half-resolution views, the network learns to
predict exactly that (the loss falls as it should), and every disparity it gives is
twice too large: depth from it is half the truth, a view warped by it lands in the wrong
place. Nothing errors; the targets are just in the wrong unit.

Reported: "should i decrease the value of the gt when i compute the \"predict_flow\"?" -
https://github.com/lmb-freiburg/flownet2/issues/56 (training DispNet with images reduced
to half size, the reporter asked whether the disparity ground truth must change; the
maintainer: upscaling or downscaling the images scales every spatial relation, so a
disparity of 50 at 512x384 is 100 at 1024x768 and 25 at 256x192 - the values must be
scaled with the resolution).
Here: synthetic rectified pairs made at 32x32 with smooth disparity 1-6 px
(_depth_flow.stereo_pairs), average-pooled to 16x16 for training, a small fully
convolutional network on the stacked left and right views, Adam, L1 loss. Fix: the
downsampled disparity divided by the downsampling factor, 2.

Measured (600 steps; held-out disparity end-point error against the half-resolution
disparity, 256 pairs, in pixels, predicting the mean everywhere scores 0.41; and the L1
photometric error of the right view warped by the predicted disparity, 0.017 for the true
disparity): seed 0, EPE 1.94 for the bug against 0.15 for the fixed twin, photometric 0.064
against 0.019; seeds shifted by 1000, EPE 1.66 against 0.12, photometric 0.060 against
0.018.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._depth_flow import (batches, conv_net, end_point_error,
                                              reconstruct_left, stereo_pairs)

TITLE = 'should i decrease the value of the gt when i compute the "predict_flow"?'
LINK = "https://github.com/lmb-freiburg/flownet2/issues/56"
EXPECTED = ("TARGET_UNITS_NOT_RESCALED",)
STEPS = 600
FACTOR = 2          # the images are downsampled by this factor


def half_resolution(n, fixed):
    left, right, disparity = stereo_pairs(n, low=1.0, high=6.0, size=16 * FACTOR)
    left, right = F.avg_pool2d(left, FACTOR), F.avg_pool2d(right, FACTOR)
    disparity = F.avg_pool2d(disparity, FACTOR)         # the map resized ...
    if fixed:
        disparity = disparity / FACTOR                  # ... and its pixel values too
    return left, right, disparity                       # BUG (unfixed): values unscaled


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    left, right, disparity = half_resolution(1024, fixed)
    test_left, test_right, test_disparity = half_resolution(256, fixed=True)
    model = conv_net(2, 1)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in batches(len(left), steps):
            pred = model(torch.cat([left[index], right[index]], dim=1))
            loss = (pred - disparity[index]).abs().mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        pred = model(torch.cat([test_left, test_right], dim=1))
    mon.held_out_disparity_epe = end_point_error(pred, test_disparity)
    mon.zero_flow_epe = end_point_error(test_disparity.mean().expand_as(test_disparity),
                                        test_disparity)
    mon.held_out_photometric = (reconstruct_left(test_right, pred) - test_left).abs().mean().item()
    mon.photometric_of_truth = (reconstruct_left(test_right, test_disparity)
                                - test_left).abs().mean().item()
    return mon
