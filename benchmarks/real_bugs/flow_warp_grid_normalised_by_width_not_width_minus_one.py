"""Unsupervised optical flow trained through a backward warp whose pixel grid is
normalised for ``grid_sample`` by dividing by W and H where ``align_corners=True`` reads
[-1, 1] as the centres of pixels 0 and W - 1 (so the divisor must be W - 1, H - 1). The
warp then samples pixel x + u at (x + u)(W - 1)/W: a shrink toward the top-left corner
that grows with the position, a full pixel at the far edge of a 16-pixel map. The
photometric loss is all the network learns from, so it must learn the flow that undoes
the shrink - the true flow plus a bias that depends on where the pixel is, which a
translation-equivariant convolution cannot represent - and at this scale the
contradictory pulls leave it with hardly any flow at all. The loss falls a little, nothing
errors.

Reported: "Abount flow grid in mmtrack.core.motion.flow.py line 27,29" -
https://github.com/open-mmlab/mmtracking/issues/466 (the flow warp normalised the grid by W
and H; the reporter showed with a 2x2 example that with ``align_corners=True`` the grid
must be divided by W - 1 and H - 1 to sample each pixel where it is; the maintainer: "What
you said is right in the case of 'align_corners=True'", and asked for a PR).
Here: synthetic 16x16 frame pairs with smooth flow up to 2 px (_depth_flow.flow_pairs), a
small fully convolutional network on the stacked frames, trained without flow labels by
the L1 photometric error of frame 2 warped back by the predicted flow plus a light
first-order smoothness term, Adam. Fix: the divisors W - 1 and H - 1.

Measured (800 steps; held-out end-point error against the true flow, 256 pairs, in pixels):
seed 0, 0.99 for the bug against 0.49 for the fixed twin (zero flow everywhere scores 1.01);
seeds shifted by 1000, 0.94 against 0.47 (zero flow 1.02).
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._depth_flow import (SIZE, batches, conv_net, end_point_error,
                                              flow_pairs, warp)

TITLE = "Abount flow grid in mmtrack.core.motion.flow.py line 27,29"
LINK = "https://github.com/open-mmlab/mmtracking/issues/466"
EXPECTED = ("WARP_GRID_NORMALISATION_MISMATCH",)
STEPS = 800
SMOOTHNESS = 0.05


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    frame1, frame2, _ = flow_pairs(1024)
    test1, test2, test_flow = flow_pairs(256)
    # align_corners=True maps -1 and 1 to the centres of pixels 0 and W - 1
    divisor = SIZE - 1 if fixed else SIZE          # BUG: W (and H) as the divisors
    model = conv_net(2, 2)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in batches(len(frame1), steps):
            first, second = frame1[index], frame2[index]
            flow = model(torch.cat([first, second], dim=1))
            warped = warp(second, flow, width_divisor=divisor, height_divisor=divisor)
            photometric = (warped - first).abs().mean()
            smooth = ((flow[..., :, 1:] - flow[..., :, :-1]).abs().mean()
                      + (flow[..., 1:, :] - flow[..., :-1, :]).abs().mean())
            loss = photometric + SMOOTHNESS * smooth
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        pred = model(torch.cat([test1, test2], dim=1))
    mon.held_out_epe = end_point_error(pred, test_flow)
    mon.zero_flow_epe = end_point_error(torch.zeros_like(test_flow), test_flow)
    return mon
