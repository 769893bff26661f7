"""A DenseDepth-style training script turns each depth map into the inverse-depth target
the network learns, ``max_depth / depth`` (DenseDepth's ``DepthNorm``: near pixels get the
large values, so they weigh more), on a custom data set whose depth maps hold 0 wherever
the sensor measured nothing. ``max_depth / 0`` is +inf: those targets are infinite, the
squared error is infinite, the gradient is -inf, Adam's update is inf / inf = NaN, and from
the second step on the weights, the loss and every prediction are NaN.

Reported: "loss nan" - https://github.com/ialhashim/DenseDepth/issues/65 (training on
one's own data set, the loss is nan; the maintainer: "Check if your data has any 'zero'
values. If so you have a choice of either filling the missing data with some values
(grater than zero) or disabling the \"DepthNorm\" function"; the same division is named in
"why divide by zero ?", ialhashim/DenseDepth 114). Here: synthetic 16x16 scenes whose
brightness cues their smooth depth (100-500 cm, ``_depth306.scenes``), 5% of the pixels
of each depth map missing (0), the target ``DepthNorm(depth) = 1000 / depth`` (2 to 10),
a small fully convolutional network with a softplus output, Adam, squared error.
Fix: fill each map's missing pixels with a value above 0 (here the map's mean measured
depth) before DepthNorm, as the maintainer advised.

Measured (250 steps, batch 16; held-out absolute relative error of the predicted depth,
1000 / output, against the dense depth, 256 scenes): NaN with the bug (every prediction is
NaN), 0.125 fixed; seeds + 1000: NaN vs 0.115.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._depth306 import DepthNet, abs_rel, scenes
from benchmarks.real_bugs._depth_flow import batches

TITLE = "loss nan"
LINK = "https://github.com/ialhashim/DenseDepth/issues/65"
EXPECTED = ("NONFINITE_TARGETS",)
STEPS = 250
MAX_DEPTH = 1000.0                                      # centimetres, as in DenseDepth
MISSING = 0.05


def depth_norm(depth_cm):
    return MAX_DEPTH / depth_cm


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    image, depth = scenes(1024)
    depth_cm = depth * 100.0
    measured = (torch.rand_like(depth_cm) > MISSING).float()
    raw = depth_cm * measured                           # the sensor's map: 0 = missing
    if fixed:                                           # a value > 0 where nothing was measured
        fill = (raw.sum(dim=(1, 2, 3), keepdim=True)
                / measured.sum(dim=(1, 2, 3), keepdim=True))
        raw = torch.where(measured.bool(), raw, fill)
    target = depth_norm(raw)                            # BUG (bug run): 1000 / 0 = inf
    test_image, test_depth = scenes(256)
    model = DepthNet()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in batches(len(image), steps):
            loss = F.mse_loss(model(image[index]), target[index])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        predicted_cm = MAX_DEPTH / model(test_image)
        mon.held_out_abs_rel = abs_rel(predicted_cm, test_depth * 100.0)
    return mon
