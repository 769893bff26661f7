"""A hand-written SGD step (``param -= lr * param.grad / batch_size`` under no_grad) kept
from a version of the code whose loss was summed over the batch, used with a loss that is
already the batch mean (``nn.CrossEntropyLoss()``): the gradient is divided by the batch
size twice, so every step is batch_size times smaller than the rate was chosen for.

Reported: "自定义的sgd函数中的“除以batch_size”是否要省略需要视loss如何定义" (whether the
hand-written sgd's division by batch_size is kept depends on how the loss is defined) -
https://github.com/ShusenTang/Dive-into-DL-PyTorch/issues/75 (the book's ``sgd(params, lr,
batch_size)`` divides by batch_size; with ``nn.CrossEntropyLoss()``, which already averages
over the batch, the division must go; the maintainer: divide once, either in the loss or
in sgd, and the division "slows training"). Here a digits MLP, cross-entropy (mean), batch
64, the book's update written by hand at lr 0.5 under ``torch.no_grad()``, no optimizer
object.

Measured (300 steps, seed 0): with the double division the loss goes from 2.32 to 2.17
(mean of the last 20 steps; lowest 2.15); with the division dropped it falls to 0.10. Fix: ``param -= lr * param.grad`` (the loss is a mean).
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, mlp

TITLE = ("自定义的sgd函数中的“除以batch_size”是否要省略需要视loss如何定义")
LINK = "https://github.com/ShusenTang/Dive-into-DL-PyTorch/issues/75"
EXPECTED = ("LR_TOO_LOW",)
STEPS = 300
LR, BATCH = 0.5, 64


def sgd(params, lr, batch_size, fixed):
    """The book's minibatch SGD, written by hand."""
    for param in params:
        if fixed:
            param -= lr * param.grad
        else:
            param -= lr * param.grad / batch_size     # BUG: the loss is already a mean
        param.grad.zero_()


def run(fixed=False, steps=STEPS, **watch):
    import nndebug as nd
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    loss_fn = nn.CrossEntropyLoss()
    losses = []
    with nd.watch(model, **watch) as mon:      # no optimizer: the loop updates the weights
        for xb, yb in batches(x, y, steps, batch_size=BATCH):
            loss = loss_fn(model(xb), yb)
            loss.backward()
            with torch.no_grad():
                sgd(model.parameters(), LR, BATCH, fixed)
            mon.step(loss)
            losses.append(float(loss.detach()))
    mon.losses = losses
    return mon
