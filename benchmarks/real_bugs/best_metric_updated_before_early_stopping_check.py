"""A trainer's evaluation step records a new best validation loss (``self.best_metric =
metric``, saving the best checkpoint) before its early-stopping check runs; the check then
compares the same loss with the best it was just copied into (``metric < self.best_metric``
is always false), sees no improvement at any epoch, and never resets its patience counter:
training stops after exactly ``patience`` epochs, however fast the validation loss is
still falling.

Reported: "Bugs found in early stopping and gradient checkpointing logics" -
https://github.com/fastino-ai/GLiNER2/issues/70 ("Early stopping always fires after exactly
`early_stopping_patience` epochs, regardless of whether the eval metric is improving";
fixed by https://github.com/fastino-ai/GLiNER2/pull/94, which keeps the previous best for
the check). Here the batch-266 set-up (``_early_stopping``: digits with 40% noisy training
labels, a 64-256-256-10 MLP under Adam, 18 steps an epoch, a validation pass after each
epoch) for at most 20 epochs, patience 2, the best checkpoint kept in memory as torch.save
writes it and loaded when training ends. Fix: compare with the best as it was before this
evaluation.

**Measured** (held-out accuracy of the loaded best checkpoint, 997 digits): seed 0, 0.763
for the bug (stopped after epoch 2, best epoch 2) against 0.884 for the fixed twin (stopped
after epoch 13, best epoch 11); every seed shifted by 1000, 0.726 (epoch 2) against 0.867
(stopped after 16, best 14).
"""
import nndebug as nd
from benchmarks.real_bugs._early_stopping import (BATCH, epochs_for, evaluate, finish,
                                                  from_bytes, setup, to_bytes, train_epoch)

TITLE = "Bugs found in early stopping and gradient checkpointing logics"
LINK = "https://github.com/fastino-ai/GLiNER2/issues/70"
EXPECTED = ("EARLY_STOPPED_WHILE_IMPROVING",)
STEPS = 360
PATIENCE = 2


class Trainer:
    def __init__(self, model, optimizer, validation, fixed):
        self.model, self.optimizer, self.validation = model, optimizer, validation
        self.fixed = fixed
        self.best_metric = float("inf")
        self.best_epoch = None
        self.best_checkpoint = None
        self.patience_counter = 0

    def _evaluate(self, epoch):
        metric = evaluate(self.model, *self.validation)[0]
        if metric < self.best_metric:
            self.best_metric = metric
            self.best_epoch = epoch
            self.best_checkpoint = to_bytes(self.model.state_dict())
        return metric

    def _check_early_stopping(self, metric, best):
        if metric < best:
            self.patience_counter = 0
        else:
            self.patience_counter += 1
        return self.patience_counter >= PATIENCE

    def train(self, train, epochs, mon):
        epoch = 0
        for epoch in range(1, epochs + 1):
            train_epoch(self.model, self.optimizer, train, BATCH, mon,
                        lambda m: (evaluate(m, *self.validation)[0], None))
            prev_best = self.best_metric
            metric = self._evaluate(epoch)
            # BUG when not fixed: the check reads best_metric after _evaluate updated it
            best = prev_best if self.fixed else self.best_metric
            if self._check_early_stopping(metric, best):
                break
        return epoch


def run(fixed=False, steps=STEPS, **watch):
    train, validation, held_out, model, optimizer = setup()
    trainer = Trainer(model, optimizer, validation, fixed)
    with nd.watch(model, optimizer, **watch) as mon:
        epochs = trainer.train(train, epochs_for(steps), mon)
        model.load_state_dict(from_bytes(trainer.best_checkpoint))
    return finish(mon, model, held_out, epochs, trainer.best_epoch)
