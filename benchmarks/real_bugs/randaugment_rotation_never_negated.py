"""An AutoAugment/RandAugment-style policy whose rotate op never draws a sign: the
magnitude becomes an angle that is always positive, so every rotated training image is
turned the same way and never the other. The augmentation is
meant to teach invariance to small rotations either way; with one sign the network only
sees one half of that range, and digits tilted the other way - common in any held-out
handwriting - stay as unfamiliar as without augmentation, worse where the one-sided
rotation has shifted what the network takes for each class. Training is as smooth as the
fixed run's; nothing looks wrong in the loop.

Reported: "[Bug] Missing random.choice in rotate" -
https://github.com/DeepVoltaire/AutoAugment/issues/28 (in the widely copied PyTorch
AutoAugment the ``rotate`` op rotated by ``magnitude`` with no random sign, "otherwise the
rotate will always be in one direction"; the fix multiplies it by ``random.choice([-1,
1])``; the maintainer: "Thank you for reporting the bug!"). Here a small CNN on the 8x8
digits; each training image gets one op drawn from {identity, rotate, translate x,
translate y} at a random magnitude up to 30 degrees / 1 pixel (the other ops do draw a
sign), Adam. Fix: a random sign on the rotation angle.

Measured (800 steps, batch 64; 500 held-out digits turned by 25 degrees, eval mode): seed
0, accuracy on digits turned the other way from the bug's rotations 0.704 for the bug
against 0.940 for the fixed twin (turned the bug's way 0.942 against 0.892; upright 0.994
for both); seeds shifted by 1000, the other way 0.700 against 0.938 (the bug's way 0.942
against 0.912; upright 0.986 against 0.994).
"""
import numpy as np
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._aug import accuracy, affine, cnn, rotated, split
from benchmarks.real_bugs._common import index_batches

TITLE = "[Bug] Missing random.choice in rotate"
LINK = "https://github.com/DeepVoltaire/AutoAugment/issues/28"
EXPECTED = ("AUGMENTATION_ONE_SIDED",)
STEPS = 800
MAX_DEGREES, MAX_SHIFT = 30.0, 1.0
TEST_DEGREES = 25.0


def augment(xb, rng, fixed):
    n = len(xb)
    op = rng.integers(0, 4, n)                      # identity, rotate, translate x, y
    magnitude = rng.uniform(0, 1, n)
    sign = rng.choice([-1.0, 1.0], n)
    degrees = np.where(op == 1, magnitude * MAX_DEGREES, 0.0)
    if fixed:
        degrees = degrees * sign                    # either way
    # BUG (fixed=False): the rotation keeps the magnitude's sign, always positive
    shift = np.zeros((n, 2))
    shift[op == 2, 0] = (magnitude * MAX_SHIFT * sign)[op == 2]
    shift[op == 3, 1] = (magnitude * MAX_SHIFT * sign)[op == 3]
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
    # turned the way the bug's rotations all go, and the other way
    mon.rotated_same_way_accuracy = accuracy(model, rotated(x_held, TEST_DEGREES), y_held)
    mon.rotated_other_way_accuracy = accuracy(model, rotated(x_held, -TEST_DEGREES), y_held)
    return mon
