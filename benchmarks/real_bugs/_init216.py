"""Shared pieces of batch 216 (weight initialisation written by hand): the digits split into
a training and a held-out part, a plain watched SGD loop, and the held-out score of the last
model trained (kept in ``LAST`` so a measuring script can read it)."""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

LAST = {}
HELD_OUT = 400


def digits_split(regression=False):
    """Digits shuffled once (by the seeded torch RNG): (x_train, y_train, x_test, y_test);
    with ``regression`` the target is the digit's standardised value (float, shape (N, 1))."""
    x, y = classification()
    order = torch.randperm(len(x))
    x, y = x[order], y[order]
    if regression:
        value = y.float()
        y = ((value - value.mean()) / value.std()).unsqueeze(1)
    return x[HELD_OUT:], y[HELD_OUT:], x[:HELD_OUT], y[:HELD_OUT]


def train(model, optimizer, loss_fn, data, steps, **watch):
    """One optimizer step per batch, each loss given to the monitor; returns the monitor."""
    x, y, x_test, y_test = data
    seed = int(torch.randint(10 ** 6, ()))
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps, batch_size=32, seed=seed):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    LAST.clear()
    LAST.update(model=model, x_test=x_test, y_test=y_test)
    return mon


def held_out_score():
    """Accuracy (class labels) or mean squared error (float targets) of the last model."""
    model, x, y = LAST["model"], LAST["x_test"], LAST["y_test"]
    with torch.no_grad():
        out = model(x)
    if y.dtype == torch.int64:
        return float((out.argmax(1) == y).float().mean())
    value = float(((out - y) ** 2).mean())
    return value if value == value else float("inf")
