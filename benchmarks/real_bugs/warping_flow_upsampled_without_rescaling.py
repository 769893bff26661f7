"""A video restoration network fed the previous frame motion-compensated by optical flow,
where the flow comes from an estimator run at a quarter of the resolution and is
bilinearly upsampled to full size - but its VALUES are divided by a fixed 16 instead of
being multiplied by the upsampling factor. Flow is measured in pixels of the grid it was
computed on: upsampled 4x, a 1-pixel motion is 4 pixels, so the values must be multiplied
by 4. Divided by 16 they are 64 times too small, the "aligned" previous frame is hardly
moved at all, and the network learns to lean on an unaligned neighbour (or to ignore it).
The loss falls, the outputs look plausible, nothing errors: the only symptom is a model
that restores worse than it should.

Reported: "Pytorch example model.py" - https://github.com/NVIDIA/nvvl/issues/56 (NVVL's
PyTorch video super-resolution example upsampled FlowNetSD's low-resolution flow and
divided it by 16 before warping; the reporter asked why, and the maintainer answered that
"if you do upsample the flow then you need a scaling factor to account for the fact that
the units of the flow are absolute pixels and the number of pixels is different in the
downsampled and upsampled images. But I think that 1/16 is not the correct scaling factor
for this", and changed the example). Here: synthetic 16x16 frame pairs (smooth texture,
smooth flow up to 4 px; _depth_flow), the estimator's flow taken at 4x4 (the true flow
averaged over 4x4 blocks, in quarter-resolution pixels: /4), upsampled bilinearly, the
previous clean frame warped by it; a small fully convolutional network reads the noisy
current frame (Gaussian noise, sigma 0.35) and the warped previous frame and predicts the
residual to the clean frame, MSE, Adam. Fix: the upsampled flow multiplied by 4 (the
upsampling factor) instead of divided by 16.

Measured (600 steps; held-out PSNR of the restored frame, 256 pairs): seed 0, 19.3 dB
for the bug against 25.6 dB for the fixed twin; seeds shifted by 1000, 19.2 against 25.4
(the noisy input itself scores 9.1 dB).
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._depth_flow import (batches, conv_net, smooth_field, textures,
                                              warp)
from benchmarks.real_bugs._vid import psnr

TITLE = "Pytorch example model.py"
LINK = "https://github.com/NVIDIA/nvvl/issues/56"
EXPECTED = ("FLOW_NOT_RESCALED_WITH_RESOLUTION",)
STEPS = 600
MAX_FLOW, NOISE, FACTOR = 4.0, 0.35, 4        # FACTOR: the estimator's resolution ratio


def frame_pairs(n):
    """(current, previous, flow): the current frame is the previous one sampled at
    x + flow (the backward flow that aligns the previous frame to the current one)."""
    previous = textures(n)
    flow = smooth_field(n, 2, -MAX_FLOW, MAX_FLOW)
    return warp(previous, flow), previous, flow


def estimated_flow(flow, fixed):
    """The flow a quarter-resolution estimator gives (block means, in its own pixels),
    upsampled bilinearly to full size."""
    low = F.avg_pool2d(flow, FACTOR) / FACTOR
    up = F.interpolate(low, scale_factor=FACTOR, mode="bilinear", align_corners=False)
    if fixed:
        return up * FACTOR             # pixels of the full-resolution grid
    return up / 16                     # BUG: a fixed 1/16, not the upsampling factor


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    current, previous, flow = frame_pairs(1024)
    test_current, test_previous, test_flow = frame_pairs(256)
    test_noisy = test_current + NOISE * torch.randn_like(test_current)
    model = conv_net(2, 1)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in batches(len(current), steps):
            clean = current[index]
            noisy = clean + NOISE * torch.randn_like(clean)
            aligned = warp(previous[index], estimated_flow(flow[index], fixed))
            restored = noisy + model(torch.cat([noisy, aligned], dim=1))
            loss = F.mse_loss(restored, clean)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        aligned = warp(test_previous, estimated_flow(test_flow, fixed))
        restored = test_noisy + model(torch.cat([test_noisy, aligned], dim=1))
    mon.held_out_psnr = psnr(restored, test_current)
    mon.noisy_psnr = psnr(test_noisy, test_current)
    return mon
