"""A restoration network trained with the SSIM index itself as its loss. SSIM is a
similarity (1 for identical images), so minimising it drives the output AWAY from the
target: the network learns to make its deblurred image as structurally unlike the sharp one
as it can (inverted contrast, noise), and the loss keeps falling while the pictures get
worse. The loss to minimise is 1 - SSIM (or -SSIM).

Reported: "MS-SSIM Usage" - https://github.com/jorge-pessoa/pytorch-msssim/issues/5 (the
reporter used ``loss_SSIM = pytorch_msssim.msssim(G_BA(real_A), real_A, normalize=True)``
as a loss term and saw "The result value until epoch 20 is betwwen 0.85 - 0.97 and then
decrease to 0.65 until 0.81"; the maintainer: "You need to use a minus sign as PyTorch
optimizers will optimize the network in the direction of minimizing the objective
function"). Here 16x16 digits (the 8x8 digits upsampled) blurred by a 5x5 Gaussian; a
residual CNN (out = input + f(input)) trained with Adam on a Gaussian-window SSIM.
Fix: loss = 1 - SSIM.

Measured (held-out SSIM of the deblurred images against the sharp ones; the blurred input
itself scores 0.837): -0.591 with the bug, 0.982 fixed; seeds + 1000: -0.593 vs 0.983.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._restore360 import Deblurrer, pairs, psnr, ssim

TITLE = "MS-SSIM Usage"
LINK = "https://github.com/jorge-pessoa/pytorch-msssim/issues/5"
EXPECTED = ("LOSS_SIGN_FLIPPED",)
STEPS = 250


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    (blurred, sharp), (test_blurred, test_sharp) = pairs()
    model = Deblurrer()
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(blurred), steps, batch_size=32, seed=0):
            similarity = ssim(model(blurred[index]), sharp[index])
            if fixed:
                loss = 1 - similarity
            else:
                loss = similarity                 # BUG: the similarity minimised
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        restored = model(test_blurred)
        mon.held_out_ssim = round(float(ssim(restored.clamp(0, 1), test_sharp)), 3)
        mon.held_out_psnr = round(psnr(restored, test_sharp), 2)
        mon.blurred_ssim = round(float(ssim(test_blurred, test_sharp)), 3)
    return mon
