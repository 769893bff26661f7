"""A depth network supervised by sparse LiDAR: the projected scan gives a depth to a few
percent of the pixels, the rest of the map is 0. The loss masks the empty pixels out by
multiplying the per-pixel error by the mask - and then takes ``.mean()`` over EVERY pixel,
so the sum over the measured pixels is divided by the whole image's pixel count. The loss
(and every gradient) is the density of the scan times what it should be: about 1/25 here.
Under SGD that is a learning rate 25 times too small; the loss falls, slowly, and the run
ends far from where it should.

Reported: "depth loss computation" -
https://github.com/nerfstudio-project/nerfstudio/issues/2487 (LiDAR depth images "filled
with 0"; the depth losses mask them, ``loss * depth_mask``, "But at the end we return:
torch.mean(loss) So the loss value will depend of the density of the depth image"; the
reporter proposed ``torch.mean(loss[depth_mask])`` and "needed to adjust it to get the
appropriate convergence"). Here: synthetic 16x16 scenes whose brightness cues their smooth
depth (1-5 m, ``_depth306.scenes``), a scan that measures 4% of the pixels at random, a
small fully convolutional network with a softplus output, SGD (lr 0.03, momentum 0.5),
absolute error per pixel.
Fix: average over the measured pixels only, ``loss[mask].mean()``.

Measured (300 steps, batch 16; held-out absolute relative error against the dense depth,
256 scenes; predicting the median depth everywhere scores about 0.25): 0.587 with the bug,
0.142 fixed; seeds + 1000: 0.566 vs 0.135.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._depth306 import DepthNet, abs_rel, scenes
from benchmarks.real_bugs._depth_flow import batches

TITLE = "depth loss computation"
LINK = "https://github.com/nerfstudio-project/nerfstudio/issues/2487"
EXPECTED = ("LR_TOO_LOW",)
STEPS = 300
DENSITY = 0.04


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    image, depth = scenes(1024)
    scanned = (torch.rand_like(depth) < DENSITY).float()
    lidar = depth * scanned                             # 0 where the scan has no point
    test_image, test_depth = scenes(256)
    model = DepthNet()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.03, momentum=0.5)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in batches(len(image), steps):
            gt = lidar[index]
            mask = gt > 0
            error = (model(image[index]) - gt).abs()
            if fixed:
                loss = error[mask].mean()
            else:
                loss = (error * mask).mean()            # BUG: divided by every pixel
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        mon.held_out_abs_rel = abs_rel(model(test_image), test_depth)
    return mon
