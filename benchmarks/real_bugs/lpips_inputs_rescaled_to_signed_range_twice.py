"""A restoration network trained with an LPIPS-style perceptual loss whose wrapper maps its
inputs from [0, 1] to [-1, 1] (``x * 2 - 1``), while the training script has already put
the images in [-1, 1]: the perceptual network sees pixels in [-3, 1], background at -3
instead of -1, far from anything it was trained on. Its features of these images are
largely saturated or cut off, so the loss still falls but no longer measures what it
should; the restorations come out clearly worse. Nothing errors.

Reported: "Fix the issue of repeated normalization in lpips" -
https://github.com/End2End-Diffusion/REPA-E/pull/17 (the training scripts already scale the
images to [-1, 1] and the LPIPS module applied the same rescaling a second time, giving
LPIPS inputs outside its expected range; the PR removes the module's two lines, merged by
the maintainers). Here: a small convolutional restorer of 8x8 digits with 40% of the
pixels dropped and noise added, trained on the perceptual distance of a small "pretrained"
digit network wrapped the LPIPS way (benchmarks/real_bugs/_perceptual.py).
Fix: rescale once (the wrapper receives the [-1, 1] images as they are).

Measured (300 Adam steps, batch 64, 500 training digits, 297 held out, seed 0): held-out
pixel MSE of the restorations 0.082 for the bug, 0.051 for the fixed twin; their perceptual
distance read correctly 0.89 and 0.39.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._perceptual import (HELD_OUT, SOURCE_ROWS, degrade, digits_01,
                                              generator, held_out_scores, pretrained)

TITLE = "Fix the issue of repeated normalization in lpips"
LINK = "https://github.com/End2End-Diffusion/REPA-E/pull/17"
EXPECTED = ("INPUT_SCALE_UNLIKE_PRETRAINING",)
STEPS = 300
LR = 3e-3


class LPIPSLoss(torch.nn.Module):
    """The perceptual loss module: its network reads images in [-1, 1]."""

    def __init__(self, fixed):
        super().__init__()
        self.net = pretrained()
        self.fixed = fixed

    def forward(self, output, target):
        if not self.fixed:
            output, target = output * 2 - 1, target * 2 - 1      # BUG: already in [-1, 1]
        return self.net(output, target).mean()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, _ = digits_01()
    train = x[SOURCE_ROWS:-HELD_OUT]
    model = generator()
    perceptual = LPIPSLoss(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=LR)
    with nd.watch(model, optimizer, **watch) as mon:
        for step, (clean, _) in enumerate(batches(train, train, steps, seed=0)):
            restored = model(degrade(clean, seed=step))
            # the training script works in [-1, 1], as the perceptual network expects
            loss = perceptual(restored * 2 - 1, clean * 2 - 1)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_mse, mon.held_out_perceptual = held_out_scores(model)
    return mon
