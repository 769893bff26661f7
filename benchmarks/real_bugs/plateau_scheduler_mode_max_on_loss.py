"""A ReduceLROnPlateau built with mode='max' and stepped with the validation LOSS: in mode
'max' the scheduler waits for its number to rise, a falling loss never beats its first
value, and every call after the first counts as bad, so the rate is cut every
``patience + 1`` epochs however well training goes.

Reported: "ReduceLROnPlateau in TrainModel uses incorrect mode" -
https://github.com/FunctionLab/selene/issues/115 (the trainer "reduces LR when the maximum
loss is not increased ... My guess is that the scheduler used to track AUROC, but the mode
was not switched from `max` to `min` when the scheduler was updated to track loss instead").
Here a digits MLP under SGD (lr 0.05, momentum 0.5), 15 epochs of 20 batches, the scheduler
(factor 0.5, patience 1) stepped once per epoch with the loss on 500 held-out digits.
Measured (seed 0): held-out loss 1.23 and accuracy 80.6% in mode 'max' (the rate halved
every other epoch), against 0.45 and 87.8% in mode 'min'. Fix: mode='min' for a loss.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, mlp

TITLE = "ReduceLROnPlateau in TrainModel uses incorrect mode"
LINK = "https://github.com/FunctionLab/selene/issues/115"
EXPECTED = ("PLATEAU_SCHEDULER_WRONG_METRIC",)
STEPS = 300
EPOCH = 20            # batches per epoch
HELD_OUT = 500


def train(fixed=False, steps=STEPS, **watch):
    """The monitor, the model and the held-out (loss, accuracy)."""
    torch.manual_seed(0)
    x, y = classification()
    x_val, y_val = x[-HELD_OUT:], y[-HELD_OUT:]
    x, y = x[:-HELD_OUT], y[:-HELD_OUT]
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.5)
    mode = "min" if fixed else "max"          # BUG: mode 'max' for a number that falls
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode=mode, factor=0.5,
                                                           patience=1)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for i, (xb, yb) in enumerate(batches(x, y, steps)):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
            if (i + 1) % EPOCH == 0:
                with torch.no_grad():
                    val_loss = loss_fn(model(x_val), y_val).item()
                scheduler.step(val_loss)
    with torch.no_grad():
        out = model(x_val)
        held = (loss_fn(out, y_val).item(), (out.argmax(1) == y_val).float().mean().item())
    return mon, model, held


def run(fixed=False, steps=STEPS, **watch):
    return train(fixed, steps, **watch)[0]
