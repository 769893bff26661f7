"""One Dense unit with a sigmoid activation fit to a curve whose every value is negative,
f(x) = -1 / (exp(10 x) + 1): a sigmoid only outputs values in (0, 1), so the best it can do
is sink towards 0, the top of the targets' range, and it never traces the curve.

Reported: "Why is the neural network not learning the curve?" -
https://codewithsundeep.com/discussion/solution/58887284 (a copy of Stack Overflow question
58887284: tf.keras, Dense(1, activation='sigmoid') on x in [-1, 1], Adam(0.01), MSE, target
- 1./(np.exp(10.*x)+1.), "it does not learn the curve"; the answer: "The sigmoid
activation function can only output values between 0 and 1. Since all the values of f(x)
are negative, the function cannot be learned", normalise the values to [0, 1]: learn
1./(np.exp(10.*x)+1.)). Here the same unit, the report's 111 training points and its 11
test points, mini-batches of 32, Adam at 0.01. Fix: train on the negated (positive) curve
and negate the prediction back.

Measured harm (R^2 on the 11 test points): seed 0: -1.907 vs 0.797; seeds + 1000: -1.776 vs 0.833.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._multi_output import r2

TITLE = "Why is the neural network not learning the curve?"
LINK = "https://codewithsundeep.com/discussion/solution/58887284"
EXPECTED = ("TARGETS_OUTSIDE_OUTPUT_RANGE",)
STEPS = 300


def f(x):
    return -1.0 / (torch.exp(10.0 * x) + 1.0)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x_train = torch.linspace(-1, 1, 111)[:, None]
    x_test = torch.linspace(-1, 1, 11)[:, None]
    sign = -1.0 if fixed else 1.0          # BUG when not fixed: the negative curve as it is
    y_train = sign * f(x_train[:, 0])
    model = nn.Sequential(nn.Linear(1, 1), nn.Sigmoid())
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    loss_fn = nn.MSELoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(x_train), steps):
            loss = loss_fn(model(x_train[index]).squeeze(1), y_train[index])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        mon.held_out_r2 = r2(sign * model(x_test).squeeze(1), f(x_test[:, 0]))
    return mon
