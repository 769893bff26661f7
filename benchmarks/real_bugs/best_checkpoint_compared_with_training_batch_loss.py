"""A trainer's best-model checkpoint compares the validation loss with a variable that the
training loop overwrites with each batch's TRAINING loss, instead of the best validation
loss so far. On noisy labels the training loss starts above the clean validation loss, so
early on every epoch "improves" and is saved, over-fitted or not; once the network has
memorised enough of the noise to bring its training loss under the validation loss, no
epoch is saved again. What is loaded at the end is whichever epoch last happened to beat
that training batch - neither the best one nor the last.

Reported: "Fix checkpoint only saving when validation loss < last training batch loss" -
https://github.com/i-machine-think/machine/pull/23 (merged; the checkpoint callback read
the trainer's ``losses``, which the batch loop had already replaced by the last training
batch's losses, so a model was saved only when its validation loss beat that batch; the
fix keeps the validation losses apart and compares with the best of those).
Here: the 8x8 digits, 600 training rows with 40% of their labels replaced by random digits,
200 clean validation rows, the rest held out; a 64-256-256-10 MLP under Adam (lr 1e-3,
batches of 32) for 60 epochs, validation loss every epoch, the saved checkpoint loaded when
training ends. ``fixed=True`` compares with the lowest validation loss so far.

**Measured** (held-out accuracy on the 997 held-out digits): seed 0, 0.78 for the bug
(the checkpoint of epoch 43 is loaded) against 0.88 for the fixed twin (epoch 12); every
seed shifted by 1000, 0.79 (epoch 44) against 0.90 (epoch 12).
"""
import math

import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._loop_control import (evaluate, snapshot, splits, training_epochs,
                                                wide_mlp)

TITLE = "Fix checkpoint only saving when validation loss < last training batch loss"
LINK = "https://github.com/i-machine-think/machine/pull/23"
EXPECTED = ("BEST_CHECKPOINT_NOT_BEST",)
EPOCHS = 60
BATCH = 32
STEPS = EPOCHS * (600 // BATCH)
NOISE = 0.4


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, (x_val, y_val), (x_test, y_test) = splits(noise=NOISE, seed=0)
    model = wide_mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    reference = {"best_val": math.inf}
    saved, saved_epoch = None, 0

    def after_step(loss):
        if not fixed:
            reference["best_val"] = loss.item()   # BUG: overwritten by this batch's loss

    with nd.watch(model, optimizer, **watch) as mon:
        for epoch, val_loss, _ in training_epochs(model, optimizer, train, steps, BATCH, mon,
                                                  lambda m: evaluate(m, x_val, y_val),
                                                  after_step):
            if val_loss < reference["best_val"]:
                saved, saved_epoch = snapshot(model), epoch
                reference["best_val"] = val_loss
        if saved is not None:
            model.load_state_dict(saved)
    mon.saved_epoch = saved_epoch
    mon.held_out_accuracy = evaluate(model, x_test, y_test)[1]
    return mon
