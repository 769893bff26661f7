"""A metrics helper called after each micro-batch puts the model in eval mode and the loop
sets train mode once per batch: every micro-batch after the first of each optimizer step
trains with dropout off and batch norm normalising by its running statistics.

Reported: "Use eval context" - https://github.com/mosaicml/composer/pull/1516 (the
regressions "were caused by the model being in eval mode for all but the first
microbatch"; the fix sets train mode once and runs every evaluation inside a context that
restores the mode). Here a digits MLP with batch norm and dropout, Adam, batches of 64
split into 4 micro-batches of 16 whose gradients are accumulated; after each micro-batch
the helper measures its accuracy under model.eval().
Measured (seed 0, 150 steps, 300 held-out digits): loss 0.463 and accuracy 89.0% (bug)
against 0.432 and 92.3% (fixed); 3 of every 4 training forwards run in eval mode. Fix: restore the mode the helper found (or measure
under a context manager that does).
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "Use eval context"
LINK = "https://github.com/mosaicml/composer/pull/1516"
EXPECTED = ("TRAINING_IN_EVAL_MODE",)
STEPS = 150
MICRO_BATCHES = 4
HELD_OUT = 300


def micro_batch_accuracy(model, xb, yb, fixed):
    """The metric pass after a micro-batch; only the fixed helper restores the mode."""
    was_training = model.training
    model.eval()
    with torch.no_grad():
        accuracy = (model(xb).argmax(1) == yb).float().mean().item()
    if fixed:
        model.train(was_training)           # BUG when not fixed: left in eval mode
    return accuracy


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    x_train, y_train = x[HELD_OUT:], y[HELD_OUT:]
    model = nn.Sequential(nn.Linear(64, 64), nn.BatchNorm1d(64), nn.ReLU(), nn.Dropout(0.3),
                          nn.Linear(64, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x_train, y_train, steps):
            model.train()                   # once per batch, before its micro-batches
            optimizer.zero_grad()
            total = 0.0
            for xm, ym in zip(xb.chunk(MICRO_BATCHES), yb.chunk(MICRO_BATCHES)):
                loss = loss_fn(model(xm), ym) / MICRO_BATCHES
                loss.backward()
                total += loss.item()
                micro_batch_accuracy(model, xm, ym, fixed)
            optimizer.step()
            mon.step(total)
    return mon
