"""Shared pieces of real-bug batch 322 (optimizers and update rules written by hand): the
digits split into training and held-out rows, the plain loop under ``nd.watch``, and the
held-out accuracy each case stores on its monitor."""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, mlp, regression

HELD_OUT = 400


def digits_split(task=classification):
    """The 8x8 digits (``task``: ``classification`` or ``regression`` of the digit's
    standardised value), shuffled once (seed 0): (x, y) for training, (x, y) held out."""
    x, y = task()
    order = torch.randperm(len(x), generator=torch.Generator().manual_seed(0))
    x, y = x[order], y[order]
    return (x[HELD_OUT:], y[HELD_OUT:]), (x[:HELD_OUT], y[:HELD_OUT])


@torch.no_grad()
def accuracy(model, x, y):
    model.eval()
    correct = (model(x).argmax(1) == y).float().mean().item()
    model.train()
    return correct


def train_digits(make_optimizer, steps, zero_grad=True, seed=0, **watch):
    """An MLP on the training digits, cross-entropy, batches of 64; ``make_optimizer``
    builds the hand-written optimizer from the parameters. ``zero_grad=False`` for an
    optimizer whose own step clears the gradients. Held-out accuracy on the monitor."""
    torch.manual_seed(seed)
    (x, y), (hx, hy) = digits_split()
    model = mlp()
    optimizer = make_optimizer(model.parameters())
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps, seed=seed):
            if zero_grad:
                optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(model, hx, hy)
    return mon


def train_digit_values(make_optimizer, steps, seed=0, **watch):
    """Regression of each digit's standardised value from its pixels: an MLP with one
    output, mean squared error, batches of 64. Held-out mean squared error on the monitor."""
    torch.manual_seed(seed)
    (x, y), (hx, hy) = digits_split(regression)
    model = mlp(outputs=1)
    optimizer = make_optimizer(model.parameters())
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps, seed=seed):
            optimizer.zero_grad()
            loss = nn.functional.mse_loss(model(xb).squeeze(1), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        model.eval()
        mon.held_out_mse = nn.functional.mse_loss(model(hx).squeeze(1), hy).item()
    return mon
