"""A signed regression target (a utility score in [-0.454, 1]) squared to bring it into the
[0, 1] range of a logistic output unit, and the prediction square-rooted back: the square
folds every negative score onto its positive twin (-0.4 and 0.4 both train as 0.16), so the
square root can never give back a negative score, and the fold's own ambiguity blurs the rest.

Reported: "neural network for regression - actual data vs predicted data" -
https://answerofmath.com/solved-neural-network-for-regression-actual-data-vs-predicted-data/
(R's nnet, whose output unit is logistic by default; "My dependent variable's between
-0.454 and 1.000, so I squared the variable to get a 0-1 range for my model, and then I took
the square root to restore the original scale"; the square-rooted predictions came out as
one value, 0.560; the answer: "you may be unintentionally setting all negative values
equal to their positive equivalents", scale with (x + 0.454) / 1.454 instead). Here the
fold, not the thread's stuck 2-unit fit: three standardised inputs, a score with about a
quarter of its values below zero, an 8-unit sigmoid hidden layer and a sigmoid output,
Adam. Fix: min-max scale the target into [0, 1] and invert that on the predictions.

Measured harm (held-out R^2 on the score's own scale): seed 0: 0.722 vs 0.943;
seeds + 1000: 0.737 vs 0.939.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._multi_output import r2, split, utility_scores

TITLE = "neural network for regression - actual data vs predicted data"
LINK = ("https://answerofmath.com/"
        "solved-neural-network-for-regression-actual-data-vs-predicted-data/")
EXPECTED = ("TARGETS_OUTSIDE_OUTPUT_RANGE",)
STEPS = 300
LOW, HIGH = -0.454, 1.0


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, score = utility_scores()
    x_train, y_train, x_test, y_test = split(x, score)
    if fixed:
        to_unit = lambda y: (y - LOW) / (HIGH - LOW)          # noqa: E731
        back = lambda p: p * (HIGH - LOW) + LOW                 # noqa: E731
    else:
        to_unit = lambda y: y ** 2                              # noqa: E731  BUG: folds the sign
        back = lambda p: p.clamp_min(0) ** 0.5                  # noqa: E731
    model = nn.Sequential(nn.Linear(3, 8), nn.Sigmoid(), nn.Linear(8, 1), nn.Sigmoid())
    optimizer = torch.optim.Adam(model.parameters(), lr=0.02)
    loss_fn = nn.MSELoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(x_train), steps):
            loss = loss_fn(model(x_train[index]).squeeze(1), to_unit(y_train[index]))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        mon.held_out_r2 = r2(back(model(x_test).squeeze(1)), y_test)
    return mon
