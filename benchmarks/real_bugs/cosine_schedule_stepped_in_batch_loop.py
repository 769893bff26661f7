"""A cosine schedule sized in epochs (T_max = the number of epochs) is stepped inside the
batch loop: the learning rate falls to zero within the first epoch and then cycles up and
down every few batches for the rest of training.

Reported: "Fix scheduler updating" - https://github.com/ivadomed/ivadomed/pull/55 (the
scheduler "was incorrectly stepped in the batch loop instead of in the epoch loop",
"causing the LR to be updated after each batch instead of after each epoch"). Here a
digits MLP with SGD and momentum, CosineAnnealingLR(T_max=6 epochs), 6 epochs of 25
batches. Measured (seed 0, 150 steps, on all 1,797 digits): loss 0.449 and accuracy 83.4%
(bug) against 0.229 and 94.1% (fixed).
Fix: scheduler.step() once per epoch, after the batch loop.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, mlp

TITLE = "Fix scheduler updating"
LINK = "https://github.com/ivadomed/ivadomed/pull/55"
EXPECTED = ("SCHEDULE_LENGTH_MISMATCH",)
STEPS = 150
EPOCHS = 6
EPOCH = STEPS // EPOCHS


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=EPOCHS)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for i, (xb, yb) in enumerate(batches(x, y, steps)):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            if not fixed or (i + 1) % EPOCH == 0:
                scheduler.step()             # BUG when not fixed: every batch
            mon.step(loss)
    return mon
