"""A super-resolution network that adds a learned residual to the upsampled low-resolution
image, trained with plain SGD at a rate suited to Adam: the residual branch's gradients are
tiny (the residual starts near zero and the loss is already the interpolation's small
error), so SGD's steps barely move it and the output stays the interpolated image: the
network adds nothing over bilinear upsampling.

Reported: "residual is always zero" -
https://github.com/HymEric/VSR-DUF-Reimplement/issues/7 (a video super-resolution
re-implementation whose predicted residual stayed at zero; the reporter: "I found the
reason that I used sgd optimizer rather than adam. After I use adam, it works."). Here a
x2 super-resolver on the 8x8 digits: the 4x4 average-pooled digit is upsampled bilinearly
and a small convolutional branch ending in PixelShuffle(2) predicts the residual. Fix:
Adam (the report's fix) at the same rate.

Measured (300 steps, 512 held-out digits): the held-out MSE against the sharp 8x8 digits
is 0.0562 for the bug, against 0.0535 for bilinear upsampling alone (the residual added
nothing useful); 0.0215 for the fixed twin (seed 0).
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification
from benchmarks.real_bugs._super_resolution import SuperResolver, bilinear, downsampled

TITLE = "residual is always zero"
LINK = "https://github.com/HymEric/VSR-DUF-Reimplement/issues/7"
EXPECTED = ("LR_TOO_LOW",)
STEPS = 300
RATE = 1e-3


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification(images=True)
    train, held_out = x[:-512], x[-512:]
    model = SuperResolver()
    if fixed:
        optimizer = torch.optim.Adam(model.parameters(), lr=RATE)
    else:
        optimizer = torch.optim.SGD(model.parameters(), lr=RATE)   # BUG: SGD at Adam's rate
    with nd.watch(model, optimizer, **watch) as mon:
        for sharp, _ in batches(train, y[:-512], steps):
            loss = F.mse_loss(model(downsampled(sharp)), sharp)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        low = downsampled(held_out)
        mon.held_out_error = F.mse_loss(model(low), held_out).item()
        mon.bilinear_error = F.mse_loss(bilinear(low), held_out).item()
    return mon
