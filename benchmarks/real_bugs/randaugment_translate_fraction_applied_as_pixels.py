"""A RandAugment policy whose translate ops are written as a FRACTION of the image (the
magnitude maps to up to 0.3 of the width) but handed to a translation that reads PIXELS:
every "translated" training image moves by a third of a pixel at most, so the translate
ops are near no-ops while the policy's configuration says they shift digits by up to
2.4 pixels. The network never learns to find a digit away from the centre, and digits
written off-centre - which the augmentation was there for - are misread. Training looks
as healthy as the fixed run's (the loss even falls faster: the task is easier).

Reported: "RandAugment default policy: posterize blacks the image out for m < 7.5;
translate_x/y are applied as sub-pixel values" - https://github.com/kornia/kornia/issues/4655
(kornia's ``RandAugment`` wrote ``lo + (hi - lo) * m / 30`` straight into the wrapped op's
parameter; for ``translate_x``/``translate_y`` with the default range (-0.5, 0.5) that is
at most half a PIXEL, where AutoAugment's same entry moves a 32-pixel image by 13 to 15
pixels; fixed in https://github.com/kornia/kornia/pull/4677 by converting the fraction to
pixels, ``value * image width`` (or height), before the translation). Here a small CNN on
the 8x8 digits; each training image gets two ops drawn from {identity, rotate, translate
x, translate y} at a random magnitude (up to 15 degrees / 0.3 of the side, random sign),
Adam. Fix: the translate magnitude times the image's side, in pixels. (Only the translate
half of the report is reproduced; the posterize half is another bug.)

Measured (800 steps, batch 64; 500 held-out digits each moved by a whole-pixel shift drawn
in [-2, 2] on both axes, eval mode): seed 0, accuracy on the shifted digits 0.280 for the
bug against 0.656 for the fixed twin (centred 0.990 against 0.968); seeds shifted by 1000,
0.294 against 0.700 (centred 0.986 against 0.980).
"""
import numpy as np
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._aug import accuracy, affine, cnn, shifted, split
from benchmarks.real_bugs._common import index_batches

TITLE = ("RandAugment default policy: posterize blacks the image out for m < 7.5; "
         "translate_x/y are applied as sub-pixel values")
LINK = "https://github.com/kornia/kornia/issues/4655"
EXPECTED = ("AUGMENTATION_NEAR_IDENTITY",)
STEPS = 800
MAX_DEGREES, MAX_TRANSLATE = 15.0, 0.3      # translate: a fraction of the image's side
OPS = 2
SIDE = 8


def augment(xb, rng, fixed):
    n = len(xb)
    degrees, shift = np.zeros(n), np.zeros((n, 2))
    for _ in range(OPS):
        op = rng.integers(0, 4, n)                  # identity, rotate, translate x, y
        value = rng.uniform(0, 1, n) * rng.choice([-1.0, 1.0], n)
        degrees += np.where(op == 1, value * MAX_DEGREES, 0.0)
        fraction = value * MAX_TRANSLATE
        pixels = fraction * SIDE if fixed else fraction   # BUG: the fraction read as pixels
        shift[op == 2, 0] += pixels[op == 2]
        shift[op == 3, 1] += pixels[op == 3]
    return affine(xb, degrees=torch.from_numpy(degrees).float(),
                  shift_px=torch.from_numpy(shift).float())


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x, y, x_held, y_held = split()
    model = cnn()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(x), steps, 64):
            xb, yb = augment(x[index], rng, fixed), y[index]
            loss = F.cross_entropy(model(xb), yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(model, x_held, y_held)
    mon.shifted_accuracy = accuracy(model, shifted(x_held, 2), y_held)
    return mon
