"""A super-resolution network trained on low-resolution images made by one degradation
(blur, noise, then downsampling) and validated on low-resolution images made by another
(plain downsampling): it learns to undo a blur and a noise the validation images do not
have, so what it learns does not carry over: the validation error stops improving while the
training loss falls.

Reported: "Why does PSNR keep dropping when training a SRResnet with DIV2K dataset?" -
https://github.com/Lornatang/SRGAN-PyTorch/issues/95 (the validation PSNR of an SRResNet
kept dropping as training went on; the reporter found that the training low-resolution
images came from "a complex function" while the test ones were just bicubic-downsampled,
and made the training ones by bicubic downsampling too: the problem was resolved). Here a
x2 super-resolver on the 8x8 digits (bilinear upsampling plus a learned sub-pixel
residual); training inputs are blurred (3x3 box), noised (std 0.1) and 2x2-averaged,
validation inputs are 2x2-averaged only; the validation loss goes to the monitor once an
epoch. Fix: make the training inputs the way the validation ones are made.

Measured (400 steps, 512 validation digits): the validation MSE is 0.0509 at the first
epoch and 0.0509 at the last for the bug (bilinear alone: 0.0535; here it stalls rather
than drops as in the report); for the fixed twin it goes from 0.0441 to 0.0203 (seed 0).
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification
from benchmarks.real_bugs._super_resolution import SuperResolver, downsampled

TITLE = "Why does PSNR keep dropping when training a SRResnet with DIV2K dataset?"
LINK = "https://github.com/Lornatang/SRGAN-PyTorch/issues/95"
EXPECTED = ("VALIDATION_INPUTS_RESCALED",)
STEPS = 400
EPOCH = 20
NOISE = 0.1


def blurred_noisy_downsampled(sharp, generator):
    """The training degradation of the bug: box blur, Gaussian noise, then 2x2 averaging."""
    blurred = F.avg_pool2d(sharp, 3, stride=1, padding=1, count_include_pad=False)
    noisy = blurred + NOISE * torch.randn(blurred.shape, generator=generator)
    return F.avg_pool2d(noisy, 2)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification(images=True)
    train, held_out = x[:-512], x[-512:]
    validation_inputs = downsampled(held_out)
    model = SuperResolver()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    generator = torch.Generator().manual_seed(0)
    validation_errors = []
    with nd.watch(model, optimizer, **watch) as mon:
        for done, (sharp, _) in enumerate(batches(train, y[:-512], steps), start=1):
            if fixed:
                low = downsampled(sharp)
            else:
                low = blurred_noisy_downsampled(sharp, generator)   # BUG: another degradation
            loss = F.mse_loss(model(low), sharp)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            val_loss = None
            if done % EPOCH == 0:
                model.eval()
                with torch.no_grad():
                    val_loss = F.mse_loss(model(validation_inputs), held_out)
                model.train()
                validation_errors.append(val_loss.item())
            mon.step(loss, val_loss=val_loss)
    mon.first_validation_error = validation_errors[0]
    mon.last_validation_error = validation_errors[-1]
    return mon
