"""The training loop tracks the validation loss, writes the best epoch's weights to best.th -
and then scores the test set (and returns the model) with whatever weights the last epoch
left: the best checkpoint is saved but never loaded. On a run that over-fits, the reported
test score and the model handed on are those of the most over-fitted epoch, not the one the
validation set chose.

Reported: "Setting \"evaluate_on_test\", the last model is evaluated, not the best one" -
https://github.com/allenai/allennlp/issues/1223 ("While everyone would expect the best
weights are used"; a maintainer: "Yep, definitely a bug"; fixed by allenai/allennlp#1234,
"load the best weights at the end so that the best model (not the last) is evaluated on
test-set and returned"). Here the batch-266 set-up (``_early_stopping``: digits with 40% noisy
training labels, a 64-256-256-10 MLP under Adam, 18 steps an epoch, a validation pass after
each epoch) for 20 epochs, best.th kept in memory as torch.save writes it, the held-out rows
as the test set. Fix: ``model.load_state_dict(torch.load(best.th))`` before the test pass.

**Measured** (test accuracy, 997 held-out digits): seed 0, 0.794 for the bug (epoch-20
weights) against 0.884 for the fixed twin (best epoch 11); every seed shifted by 1000, 0.823
(epoch 20) against 0.867 (best epoch 14).
"""
import nndebug as nd
from benchmarks.real_bugs._early_stopping import (BATCH, epochs_for, evaluate, finish,
                                                  from_bytes, setup, to_bytes, train_epoch)

TITLE = 'Setting "evaluate_on_test", the last model is evaluated, not the best one'
LINK = "https://github.com/allenai/allennlp/issues/1223"
EXPECTED = ("BEST_WEIGHTS_NOT_RESTORED",)
STEPS = 360


def train_model(model, optimizer, train, validation, epochs, mon):
    """The trainer: one validation pass per epoch, best.th written when it improves."""
    best_loss, best_epoch, best_th = float("inf"), None, None
    for epoch in range(1, epochs + 1):
        val_loss, _ = train_epoch(model, optimizer, train, BATCH, mon,
                                  lambda m: evaluate(m, *validation))
        if val_loss < best_loss:
            best_loss, best_epoch = val_loss, epoch
            best_th = to_bytes(model.state_dict())       # torch.save(..., "best.th")
    return best_epoch, best_th


def run(fixed=False, steps=STEPS, **watch):
    train, validation, test, model, optimizer = setup()
    epochs = epochs_for(steps)
    with nd.watch(model, optimizer, **watch) as mon:
        best_epoch, best_th = train_model(model, optimizer, train, validation, epochs, mon)
        if fixed:
            model.load_state_dict(from_bytes(best_th))
        # BUG when not fixed: evaluate_on_test scores the last epoch's weights
    return finish(mon, model, test, epochs, best_epoch if fixed else epochs)
