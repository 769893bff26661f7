"""``ReduceLROnPlateau`` told to watch a hand-written validation F1 score but left to guess
its direction: a name without "acc" in it makes the "auto" mode act as "min", so every rise
of the F1 counts as "no improvement" and the learning rate is halved after each second
validation while the model is still learning, down to its floor. Training runs on, the loss
still falls a little, nothing errors: the model just stops learning early.

Reported: "ReduceLROnPlateau does not work properly when choosing different monitor" -
https://github.com/keras-team/keras/issues/11964 (a Kaggle notebook monitoring a custom
``val_f1_metric`` with factor 0.5, patience 1, min_lr 1e-4 saw improvements of the F1 not
recognised; the reporter's own fix was to monitor 1 - F1, and the answer: set
``mode='max'``, since ``auto`` falls back to min for a name without "acc"). Here the digits
MLP with plain SGD (lr 0.05), an epoch of 15 batches, the macro F1 over the 10 classes on
300 held-out digits computed by hand after each epoch and handed to a torch
``ReduceLROnPlateau`` with the report's factor, patience and floor in mode "min" (what
"auto" resolved to). Fix: ``mode="max"``.

Measured (accuracy on 300 test digits, apart from the 300 validation ones): seed 0: 0.70
with the bug against 0.83 for the fixed twin; seeds shifted by 1000: 0.65 against 0.84.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, mlp

TITLE = "ReduceLROnPlateau does not work properly when choosing different monitor"
LINK = "https://github.com/keras-team/keras/issues/11964"
EXPECTED = ("PLATEAU_SCHEDULER_WRONG_METRIC", "LR_TOO_LOW")
STEPS = 300
EPOCH = 15
VAL, TEST = 300, 300


def macro_f1(model, x, y, classes=10):
    model.eval()
    with torch.no_grad():
        pred = model(x).argmax(1)
    model.train()
    scores = []
    for c in range(classes):
        tp = ((pred == c) & (y == c)).sum().item()
        fp = ((pred == c) & (y != c)).sum().item()
        fn = ((pred != c) & (y == c)).sum().item()
        scores.append(2 * tp / max(2 * tp + fp + fn, 1))
    return sum(scores) / classes


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    x_train, y_train = x[:-VAL - TEST], y[:-VAL - TEST]
    x_val, y_val = x[-VAL - TEST:-TEST], y[-VAL - TEST:-TEST]
    x_test, y_test = x[-TEST:], y[-TEST:]
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    mode = "max" if fixed else "min"            # BUG: "auto" resolved to min for an F1
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode=mode, factor=0.5,
                                                           patience=1, min_lr=1e-4)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for step, (xb, yb) in enumerate(batches(x_train, y_train, steps), start=1):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
            if step % EPOCH == 0:
                scheduler.step(macro_f1(model, x_val, y_val))
    model.eval()
    with torch.no_grad():
        mon.held_out_accuracy = (model(x_test).argmax(1) == y_test).float().mean().item()
    return mon
