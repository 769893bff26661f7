"""An L1 penalty added to the loss to make a network sparse, trained by gradient descent: the
penalty's subgradient only makes the weights oscillate around zero, none of them ever
becomes exactly zero, and the "sparse" network is as dense as one trained without it.

Reported: "L1 regularization does not give sparse solution in neural networks" -
https://discuss.pytorch.org/t/l1-regularization-does-not-give-sparse-solution-in-neural-networks/67822
(the L1 norm of each layer added to the loss: "the estimated parameters are shrunk but none
of them is exactly zero"; the poster asks whether a soft-thresholding step is needed - the
proximal step of the lasso, which is what sets weights exactly to zero). Here the digits MLP
with the penalty on both weight matrices, trained with plain SGD (the poster used Adam; SGD
keeps the proximal step of the fix exact: a soft-threshold by lr * lambda).

Measured (seed 0, 300 steps): with the bug 0.0% of the weights are exactly zero (15.5% lie
below 1e-3 in magnitude, where they jitter); fixed (the same loss, and after each step the
soft-threshold ``sign(w) * max(|w| - lr * lambda, 0)``), 25.1% are exactly zero; training
accuracy 0.930 and 0.924.
Fix: a proximal (soft-thresholding) step after each optimizer step, or prune by magnitude.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, mlp

TITLE = "L1 regularization does not give sparse solution in neural networks"
LINK = ("https://discuss.pytorch.org/t/l1-regularization-does-not-give-sparse-solution-"
        "in-neural-networks/67822")
EXPECTED = ("L1_PENALTY_WITHOUT_ZEROS",)
STEPS = 300
LR = 0.1
L1 = 1e-3


def soft_threshold(weights, amount):
    with torch.no_grad():
        for w in weights:
            w.copy_(torch.sign(w) * torch.clamp(w.abs() - amount, min=0))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    weights = [model[0].weight, model[2].weight]
    optimizer = torch.optim.SGD(model.parameters(), lr=LR)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb) + L1 * sum(w.abs().sum() for w in weights)
            loss.backward()
            optimizer.step()
            if fixed:    # the proximal step of the lasso
                soft_threshold(weights, LR * L1)
            # BUG when not fixed: the subgradient alone never lands on zero
            mon.step(loss)
    mon.weights = weights
    return mon
