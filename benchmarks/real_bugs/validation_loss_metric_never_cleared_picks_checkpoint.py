"""The validation loss is accumulated batch by batch into a list that is never cleared
between epochs, and the epoch's logged "val_loss" is the mean of that list: from the second
epoch on it is the average over every validation pass so far. That running average keeps
falling as long as the newest loss is below it, long after the real validation loss has
turned upward, so the checkpoint kept as the lowest "val_loss" is one of the last, most
over-fitted epochs.

Reported: "Fix validation loss aggregation in VSUNet" - https://github.com/mehta-lab/VisCy/pull/202
("the training loop does not clear `loss/validate` metrics after logging it. The logged
metric will be the average of all the epoch, affecting checkpoint selection"; the author
works out that the logged value decreases whenever the newest epoch's loss is below the
average of the previous ones). Here the batch-266 set-up (``_early_stopping``: digits with 40%
noisy training labels, a 64-256-256-10 MLP under Adam, 18 steps an epoch) for 20 epochs, a
validation pass after each epoch in 4 batches of 50 rows appended to
``validation_step_outputs``, the checkpoint with the lowest logged val_loss kept in memory as
torch.save writes it and loaded at the end. Fix: clear the list after each epoch's value is
logged.

**Measured** (held-out accuracy of the kept checkpoint, 997 digits): seed 0, 0.794 for the
bug (checkpoint of epoch 20) against 0.884 for the fixed twin (epoch 11); every seed shifted
by 1000, 0.823 (epoch 20) against 0.867 (epoch 14).
"""
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._early_stopping import (BATCH, epochs_for, finish, from_bytes,
                                                  setup, to_bytes, train_epoch)

TITLE = "Fix validation loss aggregation in VSUNet"
LINK = "https://github.com/mehta-lab/VisCy/pull/202"
EXPECTED = ("BEST_CHECKPOINT_NOT_BEST",)
STEPS = 360
VAL_BATCH = 50


class Module:
    """The validation hooks of the training module."""

    def __init__(self, validation, fixed):
        self.validation, self.fixed = validation, fixed
        self.validation_step_outputs = []

    def validation_step(self, model, xb, yb):
        loss = F.cross_entropy(model(xb), yb)
        self.validation_step_outputs.append(loss.item())

    def on_validation_epoch_end(self):
        logged = sum(self.validation_step_outputs) / len(self.validation_step_outputs)
        if self.fixed:
            self.validation_step_outputs.clear()
        # BUG when not fixed: the list keeps every earlier epoch's batch losses
        return logged

    def validate(self, model):
        x, y = self.validation
        model.eval()
        with torch.no_grad():
            for start in range(0, len(x), VAL_BATCH):
                self.validation_step(model, x[start:start + VAL_BATCH], y[start:start + VAL_BATCH])
        model.train()
        return self.on_validation_epoch_end(), None


def run(fixed=False, steps=STEPS, **watch):
    train, validation, held_out, model, optimizer = setup()
    module = Module(validation, fixed)
    epochs = epochs_for(steps)
    best, best_epoch, checkpoint = float("inf"), None, None
    with nd.watch(model, optimizer, **watch) as mon:
        for epoch in range(1, epochs + 1):
            val_loss, _ = train_epoch(model, optimizer, train, BATCH, mon, module.validate)
            if val_loss < best:                # ModelCheckpoint(monitor="loss/validate")
                best, best_epoch = val_loss, epoch
                checkpoint = to_bytes(model.state_dict())
        model.load_state_dict(from_bytes(checkpoint))
    return finish(mon, model, held_out, epochs, best_epoch)
