"""A first linear regression whose cost is the batch's summed squared error divided by
twice the size of the WHOLE training set, ``((pred - y) ** 2).sum() / (2 * n_samples)``,
while each optimizer step is fed a small batch. The cost is written as for full-batch
gradient descent, but the loop goes through mini-batches: every step's gradient is
n_samples / batch_size times smaller than the mean's (94x here), so plain SGD at the rate
chosen for the mean barely moves the weights. The printed cost falls, slowly.

Reported: "Linear regression: use tf.reduce_mean instead of tf.reduce_sum" -
https://github.com/aymericdamien/TensorFlow-Examples/issues/76 (the example's
``cost = tf.reduce_sum(tf.pow(pred-Y, 2))/(2*n_samples)`` is run on one sample at a time;
replacing it by ``tf.reduce_mean(...) / 2``: "I found the result is different"). Here the
same cost in PyTorch: a linear model predicting the digit's (standardised) value from the
64 pixels of the 8x8 digits, 1,500 training rows, batches of 16, plain SGD at lr 0.05,
300 steps.

Fix: the batch's mean, ``((pred - y) ** 2).mean() / 2`` (divide by the rows summed over).

Measured (held-out R^2 on 297 digits): -0.065 with the bug, 0.384 fixed; seeds + 1000:
-0.056 vs 0.379.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._red297 import r_squared, split

TITLE = "Linear regression: use tf.reduce_mean instead of tf.reduce_sum"
LINK = "https://github.com/aymericdamien/TensorFlow-Examples/issues/76"
EXPECTED = ("LR_TOO_LOW", "LOSS_DIVIDED_BY_BATCH_SIZE")
STEPS = 300
BATCH = 16


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, digit, xh, digit_h = split()
    mean, std = digit.float().mean(), digit.float().std()
    y, yh = (digit.float() - mean) / std, (digit_h.float() - mean) / std
    n_samples = len(x)
    model = nn.Linear(64, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps, batch_size=BATCH, seed=0):
            pred = model(xb).squeeze(1)
            if fixed:
                cost = ((pred - yb) ** 2).mean() / 2
            else:
                cost = ((pred - yb) ** 2).sum() / (2 * n_samples)   # BUG: the whole set's count
            optimizer.zero_grad()
            cost.backward()
            optimizer.step()
            mon.step(cost)
    mon.held_out_r2 = r_squared(model, xh, yh)
    return mon
