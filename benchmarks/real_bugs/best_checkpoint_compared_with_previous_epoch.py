"""A hand-written "save the best model" step compares each epoch's validation loss with the
PREVIOUS epoch's loss instead of the lowest one so far. Once the model starts to over-fit,
the validation loss rises with noise, and every small dip below the epoch before still
overwrites the "best" checkpoint - with a later, more over-fitted model. The checkpoint
that is loaded at the end is the last dip of the run, not its best epoch; the log reads
"saved best model" every few epochs, as it should.

Reported: "Fix: Update min_loss only on improved validation loss to ensure best ..." -
https://github.com/mindee/doctr/pull/1961 (merged; the recognition training scripts saved
the checkpoint whenever the validation loss fell below the previous epoch's, "which could
result in overwriting the best checkpoint with a suboptimal one"; the fix tracks the
minimum validation loss so far and saves only below it).
Here: the 8x8 digits, 600 training rows with 40% of their labels replaced by random digits,
200 clean validation rows, the rest held out; a 64-256-256-10 MLP under Adam (lr 1e-3,
batches of 32) for 60 epochs, validation loss every epoch, the saved checkpoint loaded when
training ends. ``fixed=True`` compares with (and then updates) the minimum so far.

**Measured** (held-out accuracy on the 997 held-out digits): seed 0, 0.67 for the bug
(the checkpoint of epoch 60 is loaded) against 0.88 for the fixed twin (epoch 12); every
seed shifted by 1000, 0.72 (epoch 59) against 0.90 (epoch 12).
"""
import math

import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._loop_control import (evaluate, snapshot, splits, training_epochs,
                                                wide_mlp)

TITLE = "Fix: Update min_loss only on improved validation loss to ensure best ..."
LINK = "https://github.com/mindee/doctr/pull/1961"
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
    min_loss, saved, saved_epoch = math.inf, None, 0
    with nd.watch(model, optimizer, **watch) as mon:
        for epoch, val_loss, _ in training_epochs(model, optimizer, train, steps, BATCH, mon,
                                                  lambda m: evaluate(m, x_val, y_val)):
            if val_loss < min_loss:
                saved, saved_epoch = snapshot(model), epoch     # "saving best model"
                min_loss = val_loss
            elif not fixed:
                min_loss = val_loss     # BUG: the reference follows the last epoch's loss
        model.load_state_dict(saved)
    mon.saved_epoch = saved_epoch
    mon.held_out_accuracy = evaluate(model, x_test, y_test)[1]
    return mon
