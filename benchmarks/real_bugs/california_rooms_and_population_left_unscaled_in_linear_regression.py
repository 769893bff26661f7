"""California-housing linear regression on the raw columns: total rooms and population (in
the thousands) sit beside median income (about 4) and latitude (about 36), so the rate that
keeps the big columns from blowing up moves the small, informative ones hardly at all.

Reported: "Linear Regression and The Exploding Gradients" -
https://thepalindrome.org/p/linear-regression-and-the-exploding-gradients (gradient descent
on the California housing table: NaN parameters "all over the place"; one feature's
gradient "orders of magnitude larger" than the others; at lr 1e-6 still NaN, at 1e-7 "stuck
at the start"; the fix is to standardise the features). Here a synthetic California-style
table (income, house age, total rooms, population, latitude; price in $100k), a linear
model and mini-batch SGD at the largest rate the raw columns allow. Fix: standardise every
input column with the training rows' mean and std (and use a normal rate).

Measured harm (held-out R^2): seed 0: -21.5 vs 0.834; seeds + 1000: -30.1 vs 0.816.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._beginner_regression import batches, houses, r2, split, standardise

TITLE = "Linear Regression and The Exploding Gradients"
LINK = "https://thepalindrome.org/p/linear-regression-and-the-exploding-gradients"
EXPECTED = ("UNNORMALIZED_INPUTS", "INPUT_CHANNELS_ON_DIFFERENT_SCALES")
STEPS = 300


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, price = houses()
    y = price / 1e5                                   # the target in $100k, as in the dataset
    x_train, y_train, x_test, y_test = split(x, y)
    if fixed:
        x_train, x_test = standardise(x_train, x_test)
        lr = 0.05
    else:
        lr = 2e-8                                     # BUG: raw columns; any larger rate diverges
    model = nn.Linear(5, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    loss_fn = nn.MSELoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for index in batches(len(x_train), steps):
            optimizer.zero_grad()
            loss = loss_fn(model(x_train[index]).squeeze(1), y_train[index])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        mon.held_out_r2 = r2(model(x_test), y_test)
    return mon
