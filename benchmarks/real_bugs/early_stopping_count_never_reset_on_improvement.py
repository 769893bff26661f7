"""Early stopping on the validation loss whose "epochs without improvement" counter is
raised on every epoch that does not beat the best loss but never set back to zero when one
does: it counts ALL the non-improving epochs of the run, not the consecutive ones, so a
noisy validation curve that is still going down stops the run as soon as ``patience``
scattered epochs have failed to set a new best. Nothing errors; the run just ends early with
an undertrained model (the best one so far is restored, as the reported trainer does).

Reported: "Early stopping does not count consecutive steps on pytorch branch" -
https://github.com/royerlab/cytoself/issues/29 (cytoself's trainer increments
``count_early_stop`` in the ``else`` branch of ``if _vloss < best_vloss`` and never resets
it, while the paper stops after 12 CONSECUTIVE epochs without improvement; the maintainers
confirmed and pushed the fix: reset the counter when the loss improves). Here the digits
MLP with SGD (lr 0.1, batches of 16), an epoch of 10 steps, the loss on 150 held-out
digits after each epoch, patience 12 epochs (the paper's), the best weights restored at the end. Fix: the
counter is set to zero on each new best.

Measured (accuracy on 300 test digits of the restored model): seed 0: 0.84 with the bug
(stopped at step 340) against 0.89 for the fixed twin (stopped at step 830); seeds shifted
by 1000: 0.87 (step 390) against 0.89 (step 810).
"""
import copy

import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, mlp

TITLE = "Early stopping does not count consecutive steps on pytorch branch"
LINK = "https://github.com/royerlab/cytoself/issues/29"
EXPECTED = ("EARLY_STOPPING_COUNTER_NOT_RESET",)
STEPS = 1500
EPOCH = 10
PATIENCE = 12
VAL, TEST = 150, 300


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    x_train, y_train = x[:-VAL - TEST], y[:-VAL - TEST]
    x_val, y_val = x[-VAL - TEST:-TEST], y[-VAL - TEST:-TEST]
    x_test, y_test = x[-TEST:], y[-TEST:]
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    loss_fn = nn.CrossEntropyLoss()
    best, best_state, without = float("inf"), None, 0
    with nd.watch(model, optimizer, **watch) as mon:
        for step, (xb, yb) in enumerate(batches(x_train, y_train, steps, batch_size=16),
                                        start=1):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
            if step % EPOCH == 0:
                model.eval()
                with torch.no_grad():
                    val_loss = loss_fn(model(x_val), y_val).item()
                model.train()
                if val_loss < best:
                    best, best_state = val_loss, copy.deepcopy(model.state_dict())
                    if fixed:
                        without = 0          # the fix: consecutive epochs only
                else:
                    without += 1             # BUG: never reset on improvement
                if without >= PATIENCE:
                    break
    mon.stopped_at_step = step
    model.load_state_dict(best_state)
    model.eval()
    with torch.no_grad():
        mon.held_out_accuracy = (model(x_test).argmax(1) == y_test).float().mean().item()
    return mon
