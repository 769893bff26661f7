"""A hand-rolled early-stopping callback (catalyst's EarlyStoppingCallback of 20.06) sets
``best_score`` from the first validation score and then, in the same call, asks whether that
score is better than the best: it is not (``score <= best - min_delta`` is false for a score
equal to the best), so the first epoch is counted as a bad epoch. With ``patience=1`` the
run always stops after its first epoch, whatever the validation loss does next.

Reported: "EarlyStoppingCallback considers first epoch as bad" -
https://github.com/catalyst-team/catalyst/issues/854 (labelled bug; "This can lead for
example to always stopping after first epoch if patience=1"; the reporter's unit test
expects no stop after one epoch). Here the batch-266 set-up (``_early_stopping``: digits with
40% noisy training labels, a 64-256-256-10 MLP under Adam, 18 steps an epoch, a validation
pass after each epoch) for at most 20 epochs with the callback's logic inline, patience 1,
min_delta 1e-6; the model as it is when training stops is scored. Fix: only compare from
the second epoch on (``if best is None: best = score`` ... ``elif is_better(...)``).

**Measured** (held-out accuracy, 997 digits): seed 0, 0.356 for the bug (stopped after
epoch 1) against 0.895 for the fixed twin (stopped after epoch 7); every seed shifted by
1000, 0.660 (epoch 1) against 0.837 (epoch 8).
"""
import nndebug as nd
from benchmarks.real_bugs._early_stopping import (BATCH, epochs_for, evaluate, finish, setup,
                                                  train_epoch)

TITLE = "EarlyStoppingCallback considers first epoch as bad"
LINK = "https://github.com/catalyst-team/catalyst/issues/854"
EXPECTED = ("EARLY_STOPPED_WHILE_IMPROVING",)
STEPS = 360
PATIENCE = 1
MIN_DELTA = 1e-6


class EarlyStopping:
    def __init__(self, patience, min_delta, fixed):
        self.patience, self.min_delta, self.fixed = patience, min_delta, fixed
        self.best_score = None
        self.num_bad_epochs = 0

    def is_better(self, score, best):
        return score <= best - self.min_delta

    def on_epoch_end(self, score):
        """True when training should stop."""
        if self.best_score is None:
            self.best_score = score
            if self.fixed:
                return False
            # BUG when not fixed: falls through and compares the score with itself
        if self.is_better(score, self.best_score):
            self.num_bad_epochs = 0
            self.best_score = score
        else:
            self.num_bad_epochs += 1
        return self.num_bad_epochs >= self.patience


def run(fixed=False, steps=STEPS, **watch):
    train, validation, held_out, model, optimizer = setup()
    stopper = EarlyStopping(PATIENCE, MIN_DELTA, fixed)
    epoch = 0
    with nd.watch(model, optimizer, **watch) as mon:
        for epoch in range(1, epochs_for(steps) + 1):
            val_loss, _ = train_epoch(model, optimizer, train, BATCH, mon,
                                      lambda m: evaluate(m, *validation))
            if stopper.on_epoch_end(val_loss):
                break
    return finish(mon, model, held_out, epoch)
