"""Hand-written early stopping is called inside the validation loop, once per validation
BATCH, instead of once per epoch with the epoch's mean validation loss. Its patience, meant
as epochs, now counts batches, and each batch's loss is compared with the lowest single
batch loss seen so far - which the other batches of the same epoch, holding other digits,
seldom beat even while the model is still improving. The stopper fires within the first
few epochs and the run ends undertrained, with a log that says "early stopping".

Reported: "Early stopping implemented on batch instead of epoch." -
https://github.com/NeptuneProjects/RISCluster/issues/1 (the stopper was placed in the batch
validation loop instead of the epoch loop, "which led to the training ending far too early";
the fix moves the call to the epoch loop, fed the epoch's validation loss).
Here: the 8x8 digits (600 training, 200 validation rows in batches of 20, the rest held
out), a 64-256-256-10 MLP under SGD (lr 0.01, momentum 0.9, batches of 32) for at most 40
epochs, patience 5, the best weights restored when it stops. ``fixed=True`` calls the
stopper once per epoch with the mean of the validation batch losses.

**Measured** (held-out accuracy on the 997 held-out digits): seed 0, 0.92 for the bug (it
stops after 9 epochs) against 0.97 for the fixed twin (all 40 epochs); every seed shifted by
1000, 0.88 (10 epochs) against 0.94 (it stops after 30). The harm is that of a run cut short:
modest, as the digits are learnt early.
"""
import math

import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._loop_control import (evaluate, snapshot, splits, training_epochs,
                                                wide_mlp)

TITLE = "Early stopping implemented on batch instead of epoch."
LINK = "https://github.com/NeptuneProjects/RISCluster/issues/1"
EXPECTED = ("EARLY_STOPPED_WHILE_IMPROVING",)
EPOCHS = 40
BATCH = 32
VAL_BATCH = 20
STEPS = EPOCHS * (600 // BATCH)
PATIENCE = 5


class EarlyStopping:
    def __init__(self, model, patience):
        self.model, self.patience = model, patience
        self.best, self.state, self.waited, self.stop = math.inf, None, 0, False

    def __call__(self, val_loss):
        if val_loss < self.best:
            self.best, self.state, self.waited = val_loss, snapshot(self.model), 0
        else:
            self.waited += 1
            self.stop = self.waited >= self.patience


def validate(model, x_val, y_val, stopper, fixed):
    losses = []
    model.eval()
    with torch.no_grad():
        for start in range(0, len(x_val), VAL_BATCH):
            xb, yb = x_val[start:start + VAL_BATCH], y_val[start:start + VAL_BATCH]
            losses.append(F.cross_entropy(model(xb), yb).item())
            if not fixed:
                stopper(losses[-1])          # BUG: stepped once per validation batch
                if stopper.stop:
                    break
    model.train()
    epoch_loss = sum(losses) / len(losses)
    if fixed:
        stopper(epoch_loss)                  # fix: once per epoch, the epoch's loss
    return epoch_loss


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, (x_val, y_val), (x_test, y_test) = splits(seed=0)
    model = wide_mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    stopper = EarlyStopping(model, PATIENCE)
    epoch = 0
    with nd.watch(model, optimizer, **watch) as mon:
        for epoch, _, _ in training_epochs(
                model, optimizer, train, steps, BATCH, mon,
                lambda m: (validate(m, x_val, y_val, stopper, fixed), None)):
            if stopper.stop:
                break
        model.load_state_dict(stopper.state)
    mon.stopped_epoch = epoch
    mon.held_out_accuracy = evaluate(model, x_test, y_test)[1]
    return mon
