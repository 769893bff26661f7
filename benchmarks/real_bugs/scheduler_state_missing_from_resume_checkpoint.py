"""The trainer's checkpoint holds the model, the optimizer and the epoch but not the
learning-rate scheduler: a resumed run builds the warm-up + cosine scheduler afresh
(``last_epoch=-1``), so every resume warms up again from zero and starts the cosine decay
over. A job that is preempted regularly never reaches the decayed end of its schedule: it
finishes at close to its peak rate, where the loss is still noisy.

Reported: "[Bug]: Checkpoint resume diverges from continuous training due to missing LR
scheduler/grad scaler states" - https://github.com/PolymathicAI/the_well/issues/77 ("Since
the LR scheduling state and the grad scaler are not stored with the rest of the training
run data, the model re-initializes them, which leads significantly different results than
had the training not been interrupted").
Here: the 8x8 digits (600 training rows, 20% of their labels replaced by random digits, 997
clean rows held out), a 64-256-256-10 MLP under Adam (peak lr 2e-2, batches of 32, 18 steps
an epoch) with a linear warm-up over 36 steps then a cosine decay to 0 at step 360, stepped
every batch; the job is preempted every 4 epochs and resumed from its checkpoint (model,
optimizer, epoch and the monitor's state, written to memory as ``torch.save`` writes a
file). Fix: save ``scheduler.state_dict()`` in the
checkpoint and load it on resume.

**Measured** (held-out accuracy of the final model, 997 held-out digits): seed 0, 0.750 for
the bug against 0.866 for the fixed twin; every seed shifted by 1000, 0.817 against 0.899.
"""
import math

import torch

import nndebug as nd
from benchmarks.real_bugs._checkpointing import (evaluate, from_bytes, splits, to_bytes,
                                                 train_epoch, wide_mlp)

TITLE = ("[Bug]: Checkpoint resume diverges from continuous training due to missing LR "
         "scheduler/grad scaler states")
LINK = "https://github.com/PolymathicAI/the_well/issues/77"
EXPECTED = ("SCHEDULER_RESTARTED_ON_RESUME",)
BATCH = 32
EPOCHS = 20
STEPS = EPOCHS * (600 // BATCH)
EPOCHS_PER_JOB = 4
LR = 2e-2
NOISE = 0.2


def warmup_cosine(total, warmup):
    def factor(step):
        if step < warmup:
            return (step + 1) / warmup
        return 0.5 * (1 + math.cos(math.pi * min(1.0, (step - warmup) / (total - warmup))))
    return factor


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, _, (x_test, y_test) = splits(noise=NOISE, seed=0)
    epochs = max(1, steps // (600 // BATCH))
    total = epochs * (600 // BATCH)
    last, mon, model = None, None, None
    while True:
        model = wide_mlp()
        optimizer = torch.optim.Adam(model.parameters(), lr=LR)
        scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer,
                                                      warmup_cosine(total, total // 10))
        start_epoch, state = 0, None
        if last is not None:
            state = from_bytes(last)
            model.load_state_dict(state["model"])
            optimizer.load_state_dict(state["optimizer"])
            if fixed:
                scheduler.load_state_dict(state["scheduler"])
            # BUG when not fixed: the scheduler is not restored (the_well never saved it)
            start_epoch = state["epoch"] + 1
        if start_epoch >= epochs:
            break
        with nd.watch(model, optimizer, **watch) as mon:
            if state is not None:
                mon.load_state_dict(state["nndebug"])
            for epoch in range(start_epoch, min(epochs, start_epoch + EPOCHS_PER_JOB)):
                train_epoch(model, optimizer, train, BATCH, mon, scheduler=scheduler)
                last = to_bytes({"model": model.state_dict(),
                                 "optimizer": optimizer.state_dict(),
                                 "scheduler": scheduler.state_dict(), "epoch": epoch,
                                 "nndebug": mon.state_dict()})
    mon.held_out_accuracy = evaluate(model, x_test, y_test)[1]
    return mon
