"""A depth regression whose targets are standardised (zero mean, unit spread) and whose
loss keeps only the pixels with a target ABOVE zero - a mask written for raw maps, where
"no measurement" is stored as 0 and every real depth is positive. After standardising,
every pixel nearer than the average is negative too: about half of the valid pixels (all
of the near ones) never enter the loss, and the network, trained only on far pixels,
predicts "far" everywhere. The loss is computed, falls and looks fine - it simply measures
the easy half.

Reported: "Depth loss" - https://github.com/isl-org/MultiObjectiveOptimization/issues/7
(labelled bug: the depth loss masks all entries smaller than zero, which excludes most of
them because the depth map has been normalised; the correct way is to mask only the
missing entries; the maintainer agreed to fix it).
Here: a monocular depth task on 16x16 synthetic scenes whose brightness carries a cue to
their smooth depth (_depth_flow.appearance_and_disparity), 10% of pixels missing (stored as
0 in the raw map), the valid depths standardised over the training set and the missing ones
kept at 0 (the mask's value), a small fully convolutional network, Adam, L1 loss over the
masked pixels. Fix: the mask marks the missing pixels only (kept where the raw map is
measured), whatever sign the standardised value has.

Measured (1,000 steps; held-out L1 error over the valid pixels, in standardised units, 256
scenes; predicting zero scores 0.83): seed 0, 0.63 for the bug against 0.33 for the fixed
twin, on the near half (the pixels the bug's mask drops) 1.00 against 0.30; seeds shifted by
1000, 0.67 against 0.33, near half 1.03 against 0.34.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._depth_flow import appearance_and_disparity, batches, conv_net

TITLE = "Depth loss"
LINK = "https://github.com/isl-org/MultiObjectiveOptimization/issues/7"
EXPECTED = ("LOSS_MASK_DROPS_VALID_TARGETS",)
STEPS = 1000
MISSING = 0.1


def scenes(n):
    """(image, raw depth with 0 where missing, measured mask)."""
    image, disparity = appearance_and_disparity(n)
    measured = (torch.rand_like(disparity) > MISSING).float()
    return image, (4.0 - disparity) * measured, measured      # depth 1-3.5


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    image, raw, measured = scenes(1024)
    test_image, test_raw, test_measured = scenes(256)
    valid = raw[measured.bool()]
    mean, std = valid.mean(), valid.std()
    target = (raw - mean) / std * measured              # standardised; missing stay 0
    test_target = (test_raw - mean) / std * test_measured
    model = conv_net(1, 1)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in batches(len(image), steps):
            pred = model(image[index])
            if fixed:
                mask = measured[index]                  # only the missing pixels out
            else:
                mask = (target[index] > 0).float()      # BUG: drops every near pixel too
            loss = ((pred - target[index]).abs() * mask).sum() / mask.sum().clamp(min=1)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        error = (model(test_image) - test_target).abs()
    near = test_measured * (test_target < 0).float()
    mon.held_out_l1 = ((error * test_measured).sum() / test_measured.sum()).item()
    mon.near_half_l1 = ((error * near).sum() / near.sum()).item()
    mon.zero_prediction_l1 = ((test_target.abs() * test_measured).sum()
                              / test_measured.sum()).item()
    return mon
