"""The trainer's ``save_model(val_loss)`` keeps the checkpoint with the lowest validation
loss (``best_loss`` starts at infinity, a save when ``val_loss < best_loss``), but the
training loop passes it the validation ACCURACY. The first epoch is saved (anything beats
infinity), and after that only an epoch whose accuracy falls below every one before it
replaces it: the "best" model handed back is the least accurate of the run, usually the
first epoch's.

Reported: "Bug in save_model function" - https://github.com/ebagdasa/backdoors101/issues/25
("the save_model function does not properly save the best checkpoint ... During training,
save_model is called and loss_val contains the **accuracy** of the current iteration on the
test set, not the loss value"; fix: "Change the initial value of self.best_loss and modify
the comparison"; the author agreed and the fix was merged in pull request 26).
Here: the 8x8 digits, 600 training rows with 40% of their labels replaced by random digits,
200 clean validation rows, the rest held out; a 64-256-256-10 MLP under Adam (lr 2e-3,
batches of 32) for 20 epochs, ``save_model`` called with the validation accuracy after each
epoch, the saved checkpoint (bytes as ``torch.save`` writes them) loaded when training ends.
Fix (as the report proposes): best starts at 0 and a save needs ``accuracy >= best``.

**Measured** (held-out accuracy of the loaded checkpoint, 997 held-out digits): seed 0,
0.356 for the bug (the epoch-1 checkpoint) against 0.884 for the fixed twin (epoch 11);
every seed shifted by 1000, 0.660 (epoch 1) against 0.881 (epoch 11).
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._checkpointing import (evaluate, from_bytes, splits, to_bytes,
                                                 train_epoch, wide_mlp)

TITLE = "Bug in save_model function"
LINK = "https://github.com/ebagdasa/backdoors101/issues/25"
EXPECTED = ("BEST_CHECKPOINT_NOT_BEST",)
BATCH = 32
EPOCHS = 20
STEPS = EPOCHS * (600 // BATCH)
NOISE = 0.4
LR = 2e-3


class Helper:
    def __init__(self, model, fixed):
        self.model, self.fixed = model, fixed
        self.best_loss = 0.0 if fixed else float("inf")
        self.saved = None

    def save_model(self, epoch, val_loss):
        """Keeps the checkpoint with the best ``val_loss`` (the loop hands it an accuracy)."""
        better = val_loss >= self.best_loss if self.fixed else val_loss < self.best_loss
        if better:                  # BUG when not fixed: lower is better, for an accuracy
            self.best_loss = val_loss
            self.saved = to_bytes({"model": self.model.state_dict(), "epoch": epoch})


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, (x_val, y_val), (x_test, y_test) = splits(noise=NOISE, seed=0)
    model = wide_mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=LR)
    helper = Helper(model, fixed)
    with nd.watch(model, optimizer, **watch) as mon:
        for epoch in range(max(1, steps // (600 // BATCH))):
            _, accuracy = train_epoch(model, optimizer, train, BATCH, mon,
                                      lambda m: evaluate(m, x_val, y_val))
            helper.save_model(epoch, val_loss=accuracy)
        saved = from_bytes(helper.saved)
        model.load_state_dict(saved["model"])
    mon.saved_epoch = saved["epoch"] + 1
    mon.held_out_accuracy = evaluate(model, x_test, y_test)[1]
    return mon
