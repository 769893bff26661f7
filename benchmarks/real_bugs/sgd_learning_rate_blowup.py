"""Plain SGD with a learning rate above the stability limit: the loss overflows to inf
around step 35 and then turns NaN.

Reported: "A high learning rate may cause a nan or an inf loss with
tf.keras.optimizers.SGD" - https://github.com/tensorflow/tensorflow/issues/38796 ("When I
decrease the learning rate, it is of less probability to happen"), reproduced in torch.
A linear regression on the digits' pixels: the learning rate 0.2 is about twice what the
largest curvature allows (2 / 21), so one direction grows by a constant factor per step
until float32 overflows. Fix: a learning rate below the limit (0.02).
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, regression

TITLE = "A high learning rate may cause a nan or an inf loss with tf.keras.optimizers.SGD"
LINK = "https://github.com/tensorflow/tensorflow/issues/38796"
EXPECTED = ("LR_TOO_HIGH", "EXPLODING_GRADIENTS")
STEPS = 120


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = regression()
    model = nn.Linear(64, 1)
    lr = 0.02 if fixed else 0.2              # BUG: twice the stable learning rate
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    loss_fn = nn.MSELoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb).squeeze(1), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
