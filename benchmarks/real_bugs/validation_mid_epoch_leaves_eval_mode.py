"""Validation runs every few iterations, in the middle of an epoch, and switches the model
to eval mode; the trainer calls ``model.train()`` only at the start of each epoch, so the
rest of every epoch after a validation trains with dropout off and batch norm frozen on its
running statistics.

Reported: "Return to train mode after validation" -
https://github.com/wkentaro/pytorch-fcn/pull/56 ("Validation can occur before end of
epoch, which sets model mode to eval. Training will have no effect until end of the
epoch."; the maintainer fixed it in the trainer). Here a digits MLP with batch norm and
dropout, 50-batch epochs, validated every 20 iterations as the report's trainer does with
``interval_validate``. Fix: ``model.train()`` again at the end of the validation.

How watch finds it: the batch-norm and dropout layers run in eval mode on steps whose
gradients train the model (TRAINING_IN_EVAL_MODE), found as it came.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "Return to train mode after validation"
LINK = "https://github.com/wkentaro/pytorch-fcn/pull/56"
EXPECTED = ("TRAINING_IN_EVAL_MODE",)
STEPS = 150
EPOCH = 75               # iterations per epoch
VALIDATE_EVERY = 10      # iterations between validations (mid-epoch)
TRAIN = 600              # training images (the rest of the first part is unused)
LR = 1e-2


def validate(model, loss_fn, x, y, fixed):
    model.eval()
    with torch.no_grad():
        value = loss_fn(model(x), y).item()
    if fixed:
        model.train()            # the fix: back to training mode after validating
    return value


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    x_train, y_train, x_val, y_val = x[:TRAIN], y[:TRAIN], x[-500:], y[-500:]
    model = nn.Sequential(nn.Linear(64, 256), nn.BatchNorm1d(256), nn.ReLU(), nn.Dropout(0.5),
                          nn.Linear(256, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=LR)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for iteration, (xb, yb) in enumerate(batches(x_train, y_train, steps)):
            if iteration % EPOCH == 0:
                model.train()                      # the trainer: once per epoch
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
            if iteration % VALIDATE_EVERY == VALIDATE_EVERY - 1:
                validate(model, loss_fn, x_val, y_val, fixed)   # BUG: leaves eval mode on
    return mon
