"""A restoration network with a global residual connection (out = input + f(input)) whose
input is standardised with a mean and std while its ground truth is left in [0, 1]. The skip
then adds the image in standardised units to a target in pixel units: instead of a small
correction, the residual branch has to learn the whole change of units (x * std + mean - x,
a large affine map of every pixel) on top of the restoration, the thing residual learning
was meant to spare it, and the restored images come out worse.

Reported: "Is there any reason why you normalize only input, but not gt?" -
https://github.com/zhilin007/FFA-Net/issues/20 ("I believe that if you use the global
residual connection, you need to normalize both of them. Unless, the residual term has to
learn much more complicated space."; later: "I guess there was a mistake implementing the
code."). FFA-Net is a dehazing network; here the same wiring on a deblurring task: 16x16
digits (the 8x8 digits upsampled) blurred by a 5x5 Gaussian, standardised with the training
images' mean and std, a residual CNN trained with L1 loss and Adam. Fix: the ground truth
standardised like the input (and the output mapped back to pixels for the test), so the
skip adds like to like. No code names a skip that joins an input and a target in different
units; TARGETS_UNSCALED (the target left in raw units) is the nearest.

Measured (held-out PSNR of the restored images against the sharp ones, dB): 30.09 with the
bug, 32.79 fixed; seeds + 1000: 30.89 vs 32.37.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._restore360 import Deblurrer, pairs, psnr

TITLE = "Is there any reason why you normalize only input, but not gt?"
LINK = "https://github.com/zhilin007/FFA-Net/issues/20"
EXPECTED = ("TARGETS_UNSCALED",)
STEPS = 250


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    (blurred, sharp), (test_blurred, test_sharp) = pairs()
    mean, std = float(blurred.mean()), float(blurred.std())

    def normalise(images):
        return (images - mean) / std

    model = Deblurrer()
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(blurred), steps, batch_size=32, seed=0):
            if fixed:
                target = normalise(sharp[index])
            else:
                target = sharp[index]                 # BUG: gt left in [0, 1]
            loss = F.l1_loss(model(normalise(blurred[index])), target)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        restored = model(normalise(test_blurred))
        if fixed:
            restored = restored * std + mean
        mon.held_out_psnr = round(psnr(restored, test_sharp), 2)
    return mon
