"""Resuming an interrupted run restores the model, the optimizer and the epoch, but sets the
best validation accuracy so far back to 0 instead of reading it from the checkpoint. The
first validation after each resume is then a "new best" whatever it scores, and it
overwrites checkpoint-best - once the model has started to over-fit, with a worse model than
the one the file held. The best model the job hands back is only the best since the last
resume.

Reported: "The bug of resume/auto_resume" - https://github.com/facebookresearch/ConvNeXt/issues/94
("Whenever the args.resume or args.auto_resume are used, 'max_acc' and 'max_acc_ema' are
reset to 0 ... when the first epoch of resuming training from the latest checkpoint ends,
even if the acc_1 at this time is lower than the max_acc before, the previously saved
checkpoint-best.pth ... will be overwritten"; the author agreed it "seemed like a bug").
Here: the 8x8 digits, 600 training rows with 40% of their labels replaced by random digits
(so the run over-fits), 200 clean validation rows, the rest held out; a 64-256-256-10 MLP
under Adam (lr 2e-3, batches of 32, 18 steps an epoch) for 20 epochs, run as a preemptible
job stopped every 5 epochs and resumed from its last checkpoint (model, optimizer, epoch and
the monitor's state, written to memory as ``torch.save`` writes a file); checkpoint-best is
saved whenever the validation accuracy beats the best so far and loaded when the job ends.
Fix: save ``max_accuracy`` in the checkpoint and read it back on resume.

**Measured** (held-out accuracy of the loaded checkpoint-best, 997 held-out digits): seed
0, 0.816 for the bug (the epoch-18 checkpoint) against 0.896 for the fixed twin (epoch 10);
every seed shifted by 1000, 0.854 (epoch 16) against 0.892 (epoch 11).
"""

import torch

import nndebug as nd
from benchmarks.real_bugs._checkpointing import (evaluate, from_bytes, splits, to_bytes,
                                                 train_epoch, wide_mlp)

TITLE = "The bug of resume/auto_resume"
LINK = "https://github.com/facebookresearch/ConvNeXt/issues/94"
EXPECTED = ("BEST_CHECKPOINT_NOT_BEST",)
BATCH = 32
EPOCHS = 20
STEPS = EPOCHS * (600 // BATCH)
EPOCHS_PER_JOB = 5       # the job is preempted every 5 epochs and resumed
NOISE = 0.4
LR = 2e-3


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, (x_val, y_val), (x_test, y_test) = splits(noise=NOISE, seed=0)
    epochs = max(1, steps // (600 // BATCH))
    last, best = None, None        # the two checkpoint "files"
    mon = None
    while True:
        model = wide_mlp()
        optimizer = torch.optim.Adam(model.parameters(), lr=LR)
        start_epoch, max_accuracy = 0, 0.0
        state = None
        if last is not None:                        # --resume: auto_resume from the latest
            state = from_bytes(last)
            model.load_state_dict(state["model"])
            optimizer.load_state_dict(state["optimizer"])
            start_epoch = state["epoch"] + 1
            if fixed:
                max_accuracy = state["max_accuracy"]
            # BUG when not fixed: max_accuracy stays 0.0 after a resume
        if start_epoch >= epochs:
            break
        with nd.watch(model, optimizer, **watch) as mon:
            if state is not None:
                mon.load_state_dict(state["nndebug"])
            for epoch in range(start_epoch, min(epochs, start_epoch + EPOCHS_PER_JOB)):
                _, accuracy = train_epoch(model, optimizer, train, BATCH, mon,
                                          lambda m: evaluate(m, x_val, y_val))
                if accuracy > max_accuracy:
                    max_accuracy = accuracy
                    best = to_bytes({"model": model.state_dict(), "epoch": epoch})
                last = to_bytes({"model": model.state_dict(),
                                 "optimizer": optimizer.state_dict(), "epoch": epoch,
                                 "max_accuracy": max_accuracy,
                                 "nndebug": mon.state_dict()})
    final = wide_mlp()
    saved = from_bytes(best)
    final.load_state_dict(saved["model"])
    mon.saved_epoch = saved["epoch"] + 1
    mon.held_out_accuracy = evaluate(final, x_test, y_test)[1]
    return mon
