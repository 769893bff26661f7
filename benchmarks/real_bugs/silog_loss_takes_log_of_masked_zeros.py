"""A monocular depth network trained with the scale-invariant log loss (SILog, BTS's
form: ``sqrt(mean(d ** 2) - 0.85 * mean(d) ** 2) * 10`` with ``d = log(pred) - log(gt)``),
whose invalid pixels (stored as 0) are "masked" by multiplying both maps by the mask BEFORE
the log: every invalid pixel becomes log(0) - log(0) = -inf - (-inf) = NaN. The loss is NaN
from the first step, the backward fills every gradient with NaN, Adam writes NaN into the
weights, and the run goes on to the end predicting NaN.

Reported: "Silog_loss issue" - https://github.com/ENSTA-U2IS-AI/LDU/issues/7 ("you take
the log of masked depth estimation and gt. However, after masking, there will be many zeros
which will result in -inf"; the maintainer: the mask must select the valid pixels, whose
values are positive - the reporter found a change of their own had broken it). Here:
synthetic 16x16 scenes whose brightness cues their smooth depth (1-5 m,
``_depth306.scenes``), 20% of each depth map missing in blob-shaped holes stored as 0, a
small fully convolutional network with a softplus output, Adam, the SILog loss.
Fix: select the valid pixels with the mask, ``log(pred[mask]) - log(gt[mask])``.

Measured (250 steps, batch 16; held-out absolute relative error against the dense depth,
256 scenes): NaN with the bug (every prediction is NaN), 0.112 fixed; seeds + 1000: NaN vs
0.107.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._depth306 import DepthNet, abs_rel, holes, scenes
from benchmarks.real_bugs._depth_flow import batches

TITLE = "Silog_loss issue"
LINK = "https://github.com/ENSTA-U2IS-AI/LDU/issues/7"
EXPECTED = ("NAN_BORN_IN_FORWARD",)
STEPS = 250


def silog(d, variance_focus=0.85):
    return torch.sqrt((d ** 2).mean() - variance_focus * d.mean() ** 2) * 10.0


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    image, depth = scenes(1024)
    raw = depth * holes(len(depth), depth.shape[-1])    # 0 = no measurement
    test_image, test_depth = scenes(256)
    model = DepthNet()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in batches(len(image), steps):
            gt = raw[index]
            mask = gt > 0
            pred = model(image[index])
            if fixed:
                d = torch.log(pred[mask]) - torch.log(gt[mask])
            else:                                       # BUG: log(0) where masked
                d = torch.log(pred * mask) - torch.log(gt * mask)
            loss = silog(d)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        mon.held_out_abs_rel = abs_rel(model(test_image), test_depth)
    return mon
