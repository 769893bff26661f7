"""A paired image-restoration dataset crops its input and its target with two independent
random crops: the blurred patch and the sharp patch the network is asked to produce come
from different places in the image. The target is no longer the input restored but the input
restored AND moved by an unknown shift, which nothing in the input predicts; the network
learns the average over the shifts - a blurrier image than it was given - and never learns
to deblur.

Reported: "Issue in random cropping: differently located crops for RealA and RealB in
\"unaligned_dataset\"" -
https://github.com/junyanz/pytorch-CycleGAN-and-pix2pix/issues/1061 ("While training
pix2pix for a custom dataset I noticed that the images stored in training directory to show
the progress, had some weird RealB images, which did not correspond to the RealA images ...
Two separate transforms are created for A and B images (which include the RandomCrop
transform too), these are applied separately to both images thus producing different random
crop"; the maintainer: "We applied the same crop for the `aligned_dataset`"). Here 16x16
digits (the 8x8 digits upsampled) blurred by a 5x5 Gaussian; a residual CNN (out = input +
f(input)) trained on 12x12 crops with L1 loss and Adam, tested on the whole held-out images.
Fix: one crop offset drawn per pair and applied to both images.

Measured (held-out PSNR of the deblurred images against the sharp ones, dB; the blurred
input itself scores 22.29): 17.77 with the bug, 31.44 fixed; seeds + 1000: 17.20 vs 31.81.
"""
import numpy as np
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._restore360 import SIZE, Deblurrer, crop, pairs, psnr

TITLE = ('Issue in random cropping: differently located crops for RealA and RealB in '
         '"unaligned_dataset"')
LINK = "https://github.com/junyanz/pytorch-CycleGAN-and-pix2pix/issues/1061"
EXPECTED = ("LABELS_MISALIGNED",)
STEPS = 250
PATCH = 12


def random_offsets(rng, n):
    top = torch.from_numpy(rng.integers(0, SIZE - PATCH + 1, n))
    left = torch.from_numpy(rng.integers(0, SIZE - PATCH + 1, n))
    return top, left


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    (blurred, sharp), (test_blurred, test_sharp) = pairs()
    model = Deblurrer()
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(blurred), steps, batch_size=32, seed=0):
            top, left = random_offsets(rng, len(index))          # the input's RandomCrop
            if fixed:
                target_top, target_left = top, left             # the same crop for the pair
            else:
                target_top, target_left = random_offsets(rng, len(index))  # BUG: its own crop
            inputs = crop(blurred[index], top, left, PATCH)
            targets = crop(sharp[index], target_top, target_left, PATCH)
            loss = F.l1_loss(model(inputs), targets)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        mon.held_out_psnr = round(psnr(model(test_blurred), test_sharp), 2)
        mon.blurred_psnr = round(psnr(test_blurred, test_sharp), 2)
    return mon
