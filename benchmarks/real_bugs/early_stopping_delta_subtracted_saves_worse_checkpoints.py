"""The popular EarlyStopping class (early-stopping-pytorch's pytorchtools.py, score = -val_loss)
counted an epoch as "no improvement" only when ``score < self.best_score - self.delta``: the
minimum-change margin was applied in the wrong direction. Any validation loss up to ``delta``
WORSE than the best so far is taken as an improvement - it becomes the new best score, its
weights overwrite checkpoint.pt and the patience counter is reset - so a validation loss that
creeps upward never stops the run, and the checkpoint loaded at the end follows the latest,
most over-fitted weights.

Reported: "score improvement checking" - https://github.com/Bjarten/early-stopping-pytorch/issues/5
(the maintainer agreed and changed the line from ``elif score < self.best_score -
self.delta:`` to ``elif score < self.best_score + self.delta:``, commit 7d8a086; copies of
the old class lingered in other repositories, e.g.
plutoyuxie/Reconstruction-by-inpainting-for-visual-anomaly-detection#8). Here the batch-266
set-up (``_early_stopping``: digits with 40% noisy training labels, a 64-256-256-10 MLP under
Adam, 18 steps an epoch, a validation pass after each epoch) for at most 20 epochs with
EarlyStopping(patience=5, delta=0.1), checkpoint.pt kept in memory as torch.save writes it and
loaded when training ends, as the class's example does. Fix: ``score < self.best_score +
self.delta``.

**Measured** (held-out accuracy of the loaded checkpoint, 997 digits): seed 0, 0.794 for the
bug (never stopped; checkpoint of epoch 20) against 0.895 for the fixed twin (stopped after
epoch 10, checkpoint of epoch 5); every seed shifted by 1000, 0.823 (epoch 20) against 0.881
(stopped after 16, epoch 11).
"""
import nndebug as nd
from benchmarks.real_bugs._early_stopping import (BATCH, epochs_for, evaluate, finish,
                                                  from_bytes, setup, to_bytes, train_epoch)

TITLE = "score improvement checking"
LINK = "https://github.com/Bjarten/early-stopping-pytorch/issues/5"
EXPECTED = ("BEST_CHECKPOINT_NOT_BEST",)
STEPS = 360
PATIENCE = 5
DELTA = 0.1


class EarlyStopping:
    """pytorchtools.EarlyStopping as it stood before the fix (checkpoint.pt in memory)."""

    def __init__(self, patience, delta, fixed):
        self.patience, self.delta, self.fixed = patience, delta, fixed
        self.counter = 0
        self.best_score = None
        self.early_stop = False
        self.checkpoint = None
        self.saved_epoch = None

    def __call__(self, val_loss, model, epoch):
        score = -val_loss
        if self.fixed:
            worse = self.best_score is not None and score < self.best_score + self.delta
        else:
            # BUG: the margin subtracted - a loss up to delta worse counts as an improvement
            worse = self.best_score is not None and score < self.best_score - self.delta
        if worse:
            self.counter += 1
            if self.counter >= self.patience:
                self.early_stop = True
        else:
            self.best_score = score
            self.save_checkpoint(model, epoch)
            self.counter = 0

    def save_checkpoint(self, model, epoch):
        self.checkpoint = to_bytes(model.state_dict())     # torch.save(..., 'checkpoint.pt')
        self.saved_epoch = epoch


def run(fixed=False, steps=STEPS, **watch):
    train, validation, held_out, model, optimizer = setup()
    early_stopping = EarlyStopping(PATIENCE, DELTA, fixed)
    epoch = 0
    with nd.watch(model, optimizer, **watch) as mon:
        for epoch in range(1, epochs_for(steps) + 1):
            val_loss, _ = train_epoch(model, optimizer, train, BATCH, mon,
                                      lambda m: evaluate(m, *validation))
            early_stopping(val_loss, model, epoch)
            if early_stopping.early_stop:
                break
        model.load_state_dict(from_bytes(early_stopping.checkpoint))
    return finish(mon, model, held_out, epoch, early_stopping.saved_epoch)
