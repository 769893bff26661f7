"""One early-stopping object, built in an early cell, used for every model the notebook
trains. It resets its patience counter when a new fit begins but keeps the best
validation loss it saw: the first model's. The next model's validation loss starts far
above that, does not beat it within the patience, and the fit is stopped after
``patience`` epochs, with the new model barely trained. Nothing errors; the log says
"early stopping", which is what it is for.

Reported: "EarlyStopping instance is not reusable" -
https://github.com/keras-team/keras/issues/20521 (the same EarlyStopping instance used to
train several models: ``on_train_begin`` ("Allow instances to be re-used") resets the
wait counter but not ``self.best``, so the best value of one training is what the next is
compared with; fixed by pull request #20533, which resets ``best`` when a fit begins).
Here two digits MLPs trained one after the other with one stopper (patience 3 epochs, on
the held-out-from-training validation loss): a first model (Adam 1e-3, hidden 64), then
the model of interest (Adam 3e-4, hidden 32 - a smaller, slower one, up to 40 epochs of
21 steps). Fix: the stopper's best set back to infinity when a fit begins.

Measured (held-out accuracy on 397 digits, the second model): seed 0, 0.36 for the bug
against 0.91 for the fixed twin; seeds shifted by 1000, 0.34 against 0.90 (the bug's second
fit is stopped after its first 3 epochs, 63 steps; the first model reaches 0.97 and 0.95
in both). A different report of the same callback's state from
benchmarks/real_bugs/early_stopping_state_reused_across_folds.py (keras pull request #3000,
2016, every state variable set in __init__): here, eight years later, only ``best`` was
left out of the reset, and the setting is one model after another in a notebook.
"""
import math

import torch

import nndebug as nd
from benchmarks.real_bugs._common import batches, mlp
from benchmarks.real_bugs._nb147 import accuracy, split

TITLE = "EarlyStopping instance is not reusable"
LINK = "https://github.com/keras-team/keras/issues/20521"
EXPECTED = ("STOPPED_WHILE_VALIDATION_IMPROVING",)   # the code of the fold case
STEPS_PER_EPOCH = 21
MAX_EPOCHS = 40
STEPS = MAX_EPOCHS * STEPS_PER_EPOCH
VALIDATION = 300            # of the 1,400 training digits, kept for the stopper


class EarlyStopping:
    def __init__(self, patience, reset_best):
        self.patience, self.reset_best = patience, reset_best
        self.best = math.inf

    def on_train_begin(self):
        self.wait = 0
        if self.reset_best:             # the fix; without it the last fit's best stays
            self.best = math.inf

    def should_stop(self, value):
        if value < self.best:
            self.best, self.wait = value, 0
            return False
        self.wait += 1
        return self.wait >= self.patience


def fit(model, optimizer, x, y, x_val, y_val, stopper, steps, mon=None, seed=0):
    loss_fn = torch.nn.CrossEntropyLoss()
    stopper.on_train_begin()
    data = batches(x, y, steps, seed=seed)
    for epoch in range(max(1, steps // STEPS_PER_EPOCH)):
        for _ in range(STEPS_PER_EPOCH):
            xb, yb = next(data)
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            if mon is not None:
                mon.step(loss)
        with torch.no_grad():
            val_loss = loss_fn(model(x_val), y_val).item()
        if stopper.should_stop(val_loss):
            break


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_held, y_held = split(0)
    x, y, x_val, y_val = x[:-VALIDATION], y[:-VALIDATION], x[-VALIDATION:], y[-VALIDATION:]
    # BUG (fixed=False): one stopper for every fit, its best never reset
    stopper = EarlyStopping(patience=3, reset_best=fixed)
    first = mlp(hidden=64)              # the earlier cell's model
    fit(first, torch.optim.Adam(first.parameters(), lr=1e-3), x, y, x_val, y_val,
        stopper, STEPS, seed=1)
    model = mlp(hidden=32)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-4)
    with nd.watch(model, optimizer, **watch) as mon:
        fit(model, optimizer, x, y, x_val, y_val, stopper, steps, mon)
    mon.held_out_accuracy = accuracy(model, x_held, y_held)
    mon.first_model_accuracy = accuracy(first, x_held, y_held)
    return mon
