"""A CosineAnnealingLR sized in batches (T_max=len(train_loader)) but stepped once per
epoch: over a run of E epochs it walks E of its len(train_loader) steps, so the rate hardly
leaves its peak and the run ends un-annealed.

Reported: "'CosineAnnealingLR' never works with the wrong position of 'scheduler.step()'" -
https://github.com/sthalles/SimCLR/issues/8 ("T_max=len(train_loader) ... I think
'scheduler.step()' should be called every step ... Otherwise, lr will never change over
multiple cosine periods" - the schedule counts batches, the loop steps it per epoch). Here a
digits MLP under SGD with momentum 0.9 and a peak rate of 0.5, 8 epochs of 40 batches of
32, T_max=40 stepped after each epoch: the rate ends at 0.91 of its peak. Measured (seed
0) on 500 held-out digits: loss 1.03 and accuracy 66.8% (the rate ended at 0.45), against
0.53 and 91.2% with T_max=8 epochs (ended at 0). Fix: T_max=epochs when stepping per epoch
(or T_max=epochs * len(train_loader) and step per batch).
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, mlp

TITLE = "'CosineAnnealingLR' never works with the wrong position of 'scheduler.step()'"
LINK = "https://github.com/sthalles/SimCLR/issues/8"
EXPECTED = ("SCHEDULE_LENGTH_MISMATCH",)
STEPS = 320
BATCH = 32
EPOCH = 40            # batches per epoch: len(train_loader)
PEAK_LR = 0.5
HELD_OUT = 500


def train(fixed=False, steps=STEPS, **watch):
    """The monitor, the model, the held-out (loss, accuracy) and the last rate."""
    torch.manual_seed(0)
    x, y = classification()
    x_val, y_val = x[-HELD_OUT:], y[-HELD_OUT:]
    x, y = x[:-HELD_OUT], y[:-HELD_OUT]
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=PEAK_LR, momentum=0.9)
    epochs = max(1, steps // EPOCH)
    t_max = epochs if fixed else EPOCH       # BUG: len(train_loader), stepped once an epoch
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=t_max)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for i, (xb, yb) in enumerate(batches(x, y, steps, batch_size=BATCH)):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
            if (i + 1) % EPOCH == 0:
                scheduler.step()
    with torch.no_grad():
        out = model(x_val)
        held = (loss_fn(out, y_val).item(), (out.argmax(1) == y_val).float().mean().item())
    return mon, model, held, [g["lr"] for g in optimizer.param_groups]


def run(fixed=False, steps=STEPS, **watch):
    return train(fixed, steps, **watch)[0]
