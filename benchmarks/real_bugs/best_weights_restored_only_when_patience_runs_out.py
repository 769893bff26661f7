"""Hand-written early stopping keeps a copy of the weights of the best validation epoch, but
loads it back only inside the branch that fires when patience runs out. When the run ends
because the epoch budget is spent - the patience was generous, or the best epoch came too
close to the end - the loop simply falls out and the model keeps the weights of its LAST
epoch, which on noisy labels are the over-fitted ones. Nothing errs: the training loss keeps
falling, the best validation loss is even printed, and the model that is saved and scored is
not the one that scored it.

Reported: "EarlyStopping callback won't restore best weights unless training stops early" -
https://github.com/keras-team/keras/issues/12511 (the restore call sat in the epoch-end
check of ``wait >= patience``, so a run that reached its last epoch without triggering kept
the last epoch's weights; confirmed by other users, answered with "restore on train end" -
the fix is to load the best weights when training ends, whatever ended it).
Here: the 8x8 digits, 600 training rows with 40% of their labels replaced by random digits,
200 clean validation rows, the rest held out; a 64-256-256-10 MLP under Adam (lr 1e-3,
batches of 32) for 60 epochs, validation loss every epoch, patience 50 (never exhausted).
``fixed=True`` loads the best epoch's weights once the epoch loop ends, however it ended.

**Measured** (held-out accuracy on the 997 held-out digits): seed 0, 0.67 for the bug against
0.88 for the fixed twin (validation loss of the kept weights 1.09 against the best 0.75);
every seed shifted by 1000, 0.72 against 0.90 (0.89 against 0.69).
"""
import math

import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._loop_control import (evaluate, snapshot, splits, training_epochs,
                                                wide_mlp)

TITLE = "EarlyStopping callback won't restore best weights unless training stops early"
LINK = "https://github.com/keras-team/keras/issues/12511"
EXPECTED = ("BEST_WEIGHTS_NOT_RESTORED",)
EPOCHS = 60
BATCH = 32
STEPS = EPOCHS * (600 // BATCH)
PATIENCE = 50
NOISE = 0.4


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, (x_val, y_val), (x_test, y_test) = splits(noise=NOISE, seed=0)
    model = wide_mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    best_loss, best_state, waited = math.inf, None, 0
    with nd.watch(model, optimizer, **watch) as mon:
        for _, val_loss, _ in training_epochs(model, optimizer, train, steps, BATCH, mon,
                                              lambda m: evaluate(m, x_val, y_val)):
            if val_loss < best_loss:
                best_loss, best_state, waited = val_loss, snapshot(model), 0
            else:
                waited += 1
                if waited >= PATIENCE:
                    model.load_state_dict(best_state)   # the only place the best is restored
                    break
        if fixed and best_state is not None:
            model.load_state_dict(best_state)           # fix: restore on train end as well
    mon.best_val_loss = best_loss
    mon.final_val_loss = evaluate(model, x_val, y_val)[0]
    mon.held_out_accuracy = evaluate(model, x_test, y_test)[1]
    return mon
