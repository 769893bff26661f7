"""The validation loader is built from the training dataset (``val_dl =
DataLoader(train_dataset, ...)`` after a refactor), so every "validation" loss is a loss on
rows the model trains on. It follows the training loss down and never shows the gap to
held-out data: overfitting is invisible, and the best epoch, early stopping and any
hyperparameter picked on it are picked on training data.

Reported: "Fix loading of validation data set" - https://github.com/JJGO/shrinkbench/pull/7
("it seems like the training set is being used as the validation set in the current setup";
the maintainer: "I double checked and the mistake happened during the release refactor").
Here a digits MLP trained on 300 digits (small enough to overfit), validated every epoch by
a pass over a loader in eval mode under torch.no_grad(): the bug's loader reads the training
rows, the fixed twin's the 600 held-out digits. Fix: build the validation loader from the
validation split.

Measured (400 steps, seed 0): the bug's last validation loss 0.019 while the same model's
loss on the held-out digits is 0.18 (the fixed twin reports 0.18).
"""
import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "Fix loading of validation data set"
LINK = "https://github.com/JJGO/shrinkbench/pull/7"
EXPECTED = ("VALIDATION_ROWS_IN_TRAINING",)
STEPS = 400
TRAIN_ROWS = 300
HELD_OUT = 600
VAL_EVERY = 25
VAL_BATCH = 100


def validation_loss(model, x, y):
    model.eval()
    total = 0.0
    with torch.no_grad():
        for start in range(0, len(x), VAL_BATCH):
            xb, yb = x[start:start + VAL_BATCH], y[start:start + VAL_BATCH]
            total += float(F.cross_entropy(model(xb), yb, reduction="sum"))
    model.train()
    return total / len(x)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    order = torch.randperm(len(x), generator=torch.Generator().manual_seed(0))
    x, y = x[order], y[order]
    train = (x[:TRAIN_ROWS], y[:TRAIN_ROWS])
    held_out = (x[-HELD_OUT:], y[-HELD_OUT:])
    val_set = held_out if fixed else train      # BUG (unfixed): validation reads the training set
    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for step, (xb, yb) in enumerate(batches(*train, steps, batch_size=32)):
            optimizer.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            val = None
            if step % VAL_EVERY == VAL_EVERY - 1:
                val = validation_loss(model, *val_set)
            mon.step(loss, val_loss=val)
    mon.extra = {"last_val_loss": round(validation_loss(model, *val_set), 4),
                 "held_out_loss": round(validation_loss(model, *held_out), 4)}
    return mon
