"""``ReduceLROnPlateau`` left in its default ``mode="min"`` while it is stepped with the
validation accuracy: every rise of the accuracy counts as "no improvement", so the
learning rate is cut again and again while the model is still learning, and training
stalls far from where it would have got.

Reported: "ReduceLROnPlateau" - https://github.com/md-mohaiminul/ViS4mer/issues/4 ("In
LVU tasks it used for accuracy metric, but the mode is not changed. Is this expected?";
the author: "I guess it was not intended. You can try changing the mode of
ReduceLROnPlateau to 'max'"). Here the digits MLP with SGD, an epoch of 15 batches, the
scheduler stepped with the accuracy on held-out digits after each. Fix: ``mode="max"``.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, mlp

TITLE = "ReduceLROnPlateau"
LINK = "https://github.com/md-mohaiminul/ViS4mer/issues/4"
EXPECTED = ("PLATEAU_SCHEDULER_WRONG_METRIC", "LR_TOO_LOW")
STEPS = 240
EPOCH = 15              # batches between two validations
HELD_OUT = 300          # the last digits, never trained on


def accuracy(model, x, y):
    model.eval()
    with torch.no_grad():
        correct = (model(x).argmax(1) == y).float().mean().item()
    model.train()
    return correct


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    x_train, y_train, x_val, y_val = x[:-HELD_OUT], y[:-HELD_OUT], x[-HELD_OUT:], y[-HELD_OUT:]
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    mode = "max" if fixed else "min"                     # BUG: "min" for an accuracy
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode=mode,
                                                           factor=0.1, patience=1)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for step, (xb, yb) in enumerate(batches(x_train, y_train, steps), start=1):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
            if step % EPOCH == 0:
                scheduler.step(accuracy(model, x_val, y_val))
    return mon
