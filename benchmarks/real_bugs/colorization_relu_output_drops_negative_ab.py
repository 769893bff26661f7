"""A colorization network that predicts the a and b channels of Lab ends in a ReLU. a and b
are signed (a < 0 is green, b < 0 is blue), so every negative target is out of the network's
reach: it can only answer 0 there, and greens and blues come out grey. The loss falls on the
reds and yellows and stalls on the rest.

Reported: "No blue and green spectrum" - https://github.com/2014mchidamb/DeepColorization/issues/2
("It skips the blue and green spectrum of the ab in Lab. It's because of the relu activation
in the last layer. It only allows for positive numbers, while the ab space goes from -128 to
128."; the fix the reporter gives: ``Ytest = Ytest / 128``, ``Activation('tanh')``,
``output = output * 128``). Here the 8x8 digits painted in a colour per class (greens and
blues among them) on black and converted to Lab; an MLP reads the L channel (/ 100) and
predicts a and b (/ 128, as the fix scales them) under a mean-squared error, Adam. The bug
keeps the targets scaled as the fix does and only ends the head in a ReLU, the cause the
report names. Fix: a tanh on the head (outputs in [-1, 1]), as the report's fix.

Measured (held-out a/b mean absolute error, Lab units, lower is
better): 12.70 with the bug, 9.26 fixed; seeds + 1000: 12.40 vs 9.09
(predicting grey everywhere: 19.1).
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._colour349 import ab_error, colour_digits, split
from benchmarks.real_bugs._common import index_batches

TITLE = "No blue and green spectrum"
LINK = "https://github.com/2014mchidamb/DeepColorization/issues/2"
EXPECTED = ("TARGETS_OUTSIDE_OUTPUT_RANGE",)
STEPS = 400
AB_SCALE = 128.0


def colorizer(fixed):
    head = nn.Tanh() if fixed else nn.ReLU()        # BUG: a ReLU cannot output negative a/b
    return nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 128), head)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    L, ab, _ = colour_digits()
    (l_train, ab_train), (l_test, ab_test) = split(L / 100, ab / AB_SCALE)
    model = colorizer(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(l_train), steps, batch_size=32, seed=0):
            optimizer.zero_grad()
            loss = F.mse_loss(model(l_train[index]), ab_train[index])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        mon.held_out_ab_error = ab_error(model(l_test) * AB_SCALE, ab_test * AB_SCALE)
    return mon
