"""A dense regression network outputs one map per image, shape ``(N, 1, H, W)``, and the
target maps come out of the data loader as ``(N, H, W)``: ``F.smooth_l1_loss`` broadcasts
the pair to ``(N, N, H, W)``, so every predicted map is scored against EVERY target map of
the batch, not only its own. The best each prediction can do is the batch's average map; the
network learns a blurry mean map and almost nothing about its own input. The loss falls,
torch prints a UserWarning, and training goes on.

Reported: "There is a difference between the target size and the input size in
smooth_l1_loss" - https://github.com/jiwei0921/CoNet/issues/3 (a salient-object / depth
network, CoNet, ECCV 2020; the warning "Using a target size (torch.Size([2, 256, 256])) that
is different to the input size (torch.Size([2, 1, 256, 256]))" on the depth losses; the
author's answer: add ``target = target.unsqueeze(1)``, (2, 256, 256) -> (2, 1, 256, 256)).
Here a small fully convolutional network denoises the 8x8 digits (a noisy digit in, its clean
map out), trained with the smooth L1 loss of the report, batch 16.

Measured (150 steps; on all 1797 digits with fresh noise, smooth L1 against each sample's
own clean map): bug 0.032, fixed 0.014; the predicted maps correlate 0.75 with their own
clean digit for the bug, 0.90 for the fixed twin (the bug's maps lean to the batch's
average digit).

Fix: give the target the output's channel axis, ``target.unsqueeze(1)``.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "There is a difference between the target size and the input size in smooth_l1_loss"
LINK = "https://github.com/jiwei0921/CoNet/issues/3"
EXPECTED = ("LOSS_SHAPE_MISMATCH",)
STEPS = 150
NOISE = 0.3


def denoiser():
    return nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(),
                         nn.Conv2d(16, 16, 3, padding=1), nn.ReLU(),
                         nn.Conv2d(16, 1, 3, padding=1))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification(images=True)           # (N, 1, 8, 8)
    clean = x[:, 0]                                # the target maps, (N, 8, 8) as loaded
    generator = torch.Generator().manual_seed(0)
    model = denoiser()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, target in batches(x, clean, steps, batch_size=16):
            noisy = xb + NOISE * torch.randn(xb.shape, generator=generator)
            if fixed:
                target = target.unsqueeze(1)       # the fix: (N, 1, 8, 8) like the output
            optimizer.zero_grad()
            output = model(noisy)                  # (N, 1, 8, 8)
            loss = F.smooth_l1_loss(output, target)   # BUG: (N, 1, 8, 8) vs (N, 8, 8)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
