"""A heteroscedastic regression loss, ``log(u) + (y - mean)^2 / u``, fed the raw output of a
linear uncertainty head: nothing keeps ``u`` positive, so the first row whose head output is
negative turns ``log(u)`` into NaN, the mean of the batch's loss is NaN, and the backward pass
writes NaN into every weight; the run trains nothing from there on.

Reported: "NaN in loss while training the log model" -
https://github.com/mattpoggi/mono-uncertainty/issues/13 (the reporter, stepping through the
decoder, found the uncertainty channel had no sigmoid while the disparity channel had one:
"the min value is negative, Log of a negative number is NaN", and asked whether it should be
kept between 0 and 1 - a bounded positive activation). Here a torch MLP predicts the digit's
value (standardised) and its uncertainty from the 8x8 pixels with that loss. Fix: a sigmoid
on the uncertainty head (plus a small floor, as the reporter proposes, so ``log`` never sees 0).

Measured (300 steps): the bug's loss is NaN from step 0 on (the gradient, 1 / u, stays finite, so
the weights move on a loss that says nothing) and its mean's squared error on the digits ends
at 0.918 (the target's variance is 1); the fixed twin's at 0.206.
"""
import torch
from torch import nn

from benchmarks.real_bugs import _common

TITLE = "NaN in loss while training the log model"
LINK = "https://github.com/mattpoggi/mono-uncertainty/issues/13"
EXPECTED = ("LOG_OF_UNBOUNDED_OUTPUT", "NAN_BORN_IN_FORWARD")
STEPS = 300
UNCERTAINTY_FLOOR = 1e-3


class MeanAndUncertainty(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(64, 64), nn.ReLU())
        self.mean = nn.Linear(64, 1)
        self.uncertainty = nn.Linear(64, 1)
        self.fixed = fixed

    def forward(self, x):
        h = self.body(x)
        raw = self.uncertainty(h)[:, 0]
        # BUG (fixed=False): the raw head output is used as the uncertainty
        u = torch.sigmoid(raw) + UNCERTAINTY_FLOOR if self.fixed else raw
        return self.mean(h)[:, 0], u


def log_likelihood_loss(output, y):
    mean, u = output
    return (torch.log(u) + (y - mean) ** 2 / u).mean()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = _common.regression()
    model = MeanAndUncertainty(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    mon = _common.train_watched(model, optimizer, log_likelihood_loss,
                                _common.batches(x, y, steps), **watch)
    with torch.no_grad():
        mean, u = model(x)
        mon.held_in_mse = round(float(((mean - y) ** 2).mean()), 4)
    return mon
