"""A hand-written trainer keeps "best.pt" by comparing each validation loss with
``self.best_val_loss``, but never assigns that attribute: it stays None, the test
``self.best_val_loss is None or val_loss < self.best_val_loss`` is always true, and every
validation pass overwrites best.pt. The "best" checkpoint loaded when training ends is the
last one - the most over-fitted model of the run.

Reported: "fix: stop overwriting `best.pt` every validation" -
https://github.com/PolymathicAI/the_well/pull/60 (merged; "`self.best_val_loss` is never
set, so `self.best_val_loss is None` is always `True`, which causes the `best.pt` checkpoint
to be overwritten every validation step during training"; the author had been "looking for
a problem with the checkpoints due to some oddity in the validation loss").
Here: the 8x8 digits, 600 training rows with 40% of their labels replaced by random digits
(so the run over-fits), 200 clean validation rows, the rest held out; a 64-256-256-10 MLP
under Adam (lr 2e-3, batches of 32) for 20 epochs, a validation pass after each epoch, best.pt
written to memory as ``torch.save`` writes a file and loaded when training ends. Fix: set
``self.best_val_loss = val_loss`` when best.pt is saved.

**Measured** (held-out accuracy of the loaded best.pt, 997 held-out digits): seed 0,
0.793 for the bug (the epoch-20 checkpoint) against 0.884 for the fixed twin (epoch 11);
every seed shifted by 1000, 0.823 (epoch 20) against 0.867 (epoch 14).
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._checkpointing import (evaluate, from_bytes, splits, to_bytes,
                                                 train_epoch, wide_mlp)

TITLE = "fix: stop overwriting `best.pt` every validation"
LINK = "https://github.com/PolymathicAI/the_well/pull/60"
EXPECTED = ("BEST_CHECKPOINT_NOT_BEST",)
BATCH = 32
EPOCHS = 20
STEPS = EPOCHS * (600 // BATCH)
NOISE = 0.4
LR = 2e-3


class Trainer:
    def __init__(self, model, optimizer, validation, fixed):
        self.model, self.optimizer = model, optimizer
        self.validation = validation
        self.fixed = fixed
        self.best_val_loss = None
        self.best = None            # the bytes of best.pt

    def validate(self, model):
        return evaluate(model, *self.validation)

    def save_if_best(self, val_loss, epoch):
        if self.best_val_loss is None or val_loss < self.best_val_loss:
            self.best = to_bytes({"model": self.model.state_dict(), "epoch": epoch})
            if self.fixed:
                self.best_val_loss = val_loss
            # BUG when not fixed: best_val_loss is never set, so it stays None

    def train(self, train, epochs, mon):
        for epoch in range(epochs):
            val_loss, _ = train_epoch(self.model, self.optimizer, train, BATCH, mon,
                                      self.validate)
            self.save_if_best(val_loss, epoch)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, validation, (x_test, y_test) = splits(noise=NOISE, seed=0)
    model = wide_mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=LR)
    trainer = Trainer(model, optimizer, validation, fixed)
    with nd.watch(model, optimizer, **watch) as mon:
        trainer.train(train, max(1, steps // (600 // BATCH)), mon)
        saved = from_bytes(trainer.best)
        model.load_state_dict(saved["model"])
    mon.saved_epoch = saved["epoch"] + 1
    mon.held_out_accuracy = evaluate(model, x_test, y_test)[1]
    return mon
