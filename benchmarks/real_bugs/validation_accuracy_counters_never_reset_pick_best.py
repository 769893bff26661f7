"""The validation accuracy is accumulated in counters (correct, seen) that are set to zero
once, before the epoch loop, instead of at the start of each validation pass: from the
second epoch on the "validation accuracy" is the average over every pass so far. That
running average lags far behind the model, keeps climbing for many epochs after the
model's real accuracy has peaked and started to fall, and the "best" checkpoint kept by it
is a late, overfitted one. Training itself is untouched and nothing errors: the model
restored at the end is just worse than the best one the run passed through.

Reported: "Reset validation accuracy every epoch" - https://github.com/MichiganCOG/ViP/issues/34
(the ViP video platform tracked validation accuracy "throughout all of training"; labelled
a bug and fixed by resetting the accuracy state at the start of each validation epoch).
Here a wide MLP with Adam on 400 training digits whose labels are 40% noisy (so it peaks
early and then memorises the noise), validation on 300 clean digits after each epoch of 12
batches, the weights with the best validation accuracy restored at the end. Fix: the
counters are reset at the start of each validation pass.

Measured (accuracy on 300 test digits of the restored "best" model): seed 0: 0.88 with
the bug against 0.91 for the fixed twin; seeds shifted by 1000: 0.84 against 0.88.
"""
import copy

import numpy as np
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "Reset validation accuracy every epoch"
LINK = "https://github.com/MichiganCOG/ViP/issues/34"
EXPECTED = ("METRIC_STATE_NOT_RESET",)
STEPS = 600
EPOCH = 12
TRAIN, VAL, TEST = 400, 300, 300
NOISE = 0.4


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x, y = classification()
    order = torch.from_numpy(rng.permutation(len(x)))
    x, y = x[order], y[order]
    x_train, y_train = x[:TRAIN], y[:TRAIN].clone()
    flip = torch.from_numpy(rng.random(TRAIN) < NOISE)
    y_train[flip] = torch.from_numpy(rng.integers(0, 10, int(flip.sum())))
    x_val, y_val = x[TRAIN:TRAIN + VAL], y[TRAIN:TRAIN + VAL]
    x_test, y_test = x[TRAIN + VAL:TRAIN + VAL + TEST], y[TRAIN + VAL:TRAIN + VAL + TEST]
    model = nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(),
                          nn.Linear(256, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.CrossEntropyLoss()
    best, best_state = -1.0, None
    correct = seen = 0                       # BUG: set once, never reset per validation
    with nd.watch(model, optimizer, **watch) as mon:
        for step, (xb, yb) in enumerate(batches(x_train, y_train, steps, batch_size=32),
                                        start=1):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
            if step % EPOCH == 0:
                if fixed:
                    correct = seen = 0       # the fix: a fresh count for each pass
                model.eval()
                with torch.no_grad():
                    for start in range(0, VAL, 100):
                        pred = model(x_val[start:start + 100]).argmax(1)
                        correct += (pred == y_val[start:start + 100]).sum().item()
                        seen += len(pred)
                model.train()
                accuracy = correct / seen
                if accuracy > best:
                    best, best_state = accuracy, copy.deepcopy(model.state_dict())
    model.load_state_dict(best_state)
    model.eval()
    with torch.no_grad():
        mon.held_out_accuracy = (model(x_test).argmax(1) == y_test).float().mean().item()
    return mon
