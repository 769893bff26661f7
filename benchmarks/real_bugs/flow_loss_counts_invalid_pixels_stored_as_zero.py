"""A flow network fine-tuned on sparse ground truth whose missing pixels are stored as
ZERO flow (KITTI's 16-bit PNGs hold (0, 0) and a valid bit of 0 where the lidar saw
nothing): the loss layer skips invalid pixels only when they are NaN, so every missing
pixel is trained as a real measurement "this pixel did not move". With most pixels
missing, the end-point-error loss is minimised by a flow shrunk toward zero: the network
learns to predict almost no motion. The loss falls, nothing errors; only the error on the
pixels that do have ground truth says the flow is wrong.

Reported: "Finetune Problem Caused by KITTI Sparse GT" -
https://github.com/lmb-freiburg/flownet2/issues/153 (fine-tuning FlowNet2 on KITTI gave
results "greatly affected by the sparse ground-truth"; the maintainer: the L1 loss layer
ignores NaN values, but KITTI's invalid pixels are zero, not NaN - convert them before
training; the reporter: "The problem is solved by following your suggestion").
Here: synthetic 16x16 frame pairs with smooth flow up to 2 px (_depth_flow.flow_pairs), 70%
of each map missing at random (stored as zero flow with a valid mask, as KITTI does), a
small fully convolutional network on the stacked frames, Adam, the average end-point
error. Fix: only the valid pixels enter the loss (the mask the data already carries).

Measured (1,200 steps; held-out end-point error against the dense true flow, 256 pairs, in
pixels): seed 0, EPE 1.02 for the bug against 0.41 for the fixed twin (zero flow everywhere
scores 1.02: the bug run learned no motion at all); seeds shifted by 1000, 1.00 against
0.38 (zero flow 1.00).
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._depth_flow import batches, conv_net, end_point_error, flow_pairs

TITLE = "Finetune Problem Caused by KITTI Sparse GT"
LINK = "https://github.com/lmb-freiburg/flownet2/issues/153"
EXPECTED = ("SPARSE_TARGET_ZEROS_TRAINED_AS_VALID",)
STEPS = 1200
MISSING = 0.7       # the share of pixels without ground truth


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    frame1, frame2, flow = flow_pairs(1024)
    valid = (torch.rand(1024, 1, 16, 16) > MISSING).float()
    stored = flow * valid                      # KITTI: no measurement -> (0, 0), valid 0
    test1, test2, test_flow = flow_pairs(256)
    model = conv_net(2, 2)
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in batches(len(frame1), steps):
            pred = model(torch.cat([frame1[index], frame2[index]], dim=1))
            error = (pred - stored[index]).pow(2).sum(dim=1, keepdim=True).add(1e-8).sqrt()
            if fixed:
                mask = valid[index]
                loss = (error * mask).sum() / mask.sum()
            else:
                loss = error.mean()            # BUG: the zero-stored holes count as motion 0
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        pred = model(torch.cat([test1, test2], dim=1))
    mon.held_out_epe = end_point_error(pred, test_flow)
    mon.zero_flow_epe = end_point_error(torch.zeros_like(test_flow), test_flow)
    return mon
