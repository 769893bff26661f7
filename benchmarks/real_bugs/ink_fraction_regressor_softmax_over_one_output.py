"""A first image regressor whose target lies in [0, 1] (here the share of inked pixels of
each digit) ends in a one-unit Linear followed by Softmax, chosen "to squash the output to
[0, 1]". A softmax over a single value is always exactly 1: every prediction is 1.0 for
every picture, the gradient reaching the network is zero, and the squared error stays
where it started for the whole run.

Reported: "Why can't I use softmax in regression task for probabilities?" -
https://stackoverflow.com/questions/63909566 (read in its mirror at
https://example-a.com/answer/63909566; a Dense(1, activation='softmax') output
trained with mean squared error on targets in [0, 1]: "the loss does not change at all
between epochs and remains constant"; the accepted fix is a sigmoid, since a softmax of
one value is always 1). Here an MLP (64 -> 64 -> 1) on the flattened 8x8 digits predicts
the share of pixels above half intensity, MSELoss, Adam (lr 1e-3), 300 steps of 64
pictures, held-out pictures scored by mean absolute error.

Fix: nn.Sigmoid() as the output activation (the range the reporter wanted), nothing else
changed.

Measured (held-out MAE of the inked share): 0.707 with the bug, 0.039 fixed; seeds + 1000:
0.707 vs 0.040.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._image_regression_first import held_out_mae, ink_fraction, pictures

TITLE = "Why can't I use softmax in regression task for probabilities?"
LINK = "https://stackoverflow.com/questions/63909566"
EXPECTED = ("SOFTMAX_OVER_ONE_UNIT",)
STEPS = 300


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, _, xh, _ = pictures()
    y, yh = ink_fraction(x).unsqueeze(1), ink_fraction(xh)
    squash = nn.Sigmoid() if fixed else nn.Softmax(dim=1)    # BUG: softmax of one value is 1
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 1), squash)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.MSELoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_mae = held_out_mae(model, xh, yh)
    return mon
