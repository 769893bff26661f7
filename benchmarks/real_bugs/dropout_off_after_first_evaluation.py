"""The evaluation epoch calls model.eval() and the training epoch never calls model.train():
from the second epoch on, a dropout-regularised classifier trains with its dropout off and
over-fits its small training set.

Reported: "Switch between model.train() and model.eval()" -
https://github.com/asyml/texar-pytorch/issues/310 (in the BERT classifier example, "after
doing _eval_epoch(), you don't switch model.eval() to model.train()"; a maintainer: "this
is a very good point, thank you for your report"). Here a wide digits MLP with dropout
0.5 (no batch norm: dropout is all that eval mode turns off), Adam, 200 training
examples (batches of 32, lr 3e-3), evaluated on 300 held-out ones every epoch of 25
steps. Measured (seed 0, 200 steps): held-out loss 0.788 and accuracy 80.7% (bug) against
0.636 and 83.3% (fixed): without its dropout the network over-fits the 200 examples.
Fix: model.train() at the start of every training epoch.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "Switch between model.train() and model.eval()"
LINK = "https://github.com/asyml/texar-pytorch/issues/310"
EXPECTED = ("TRAINING_IN_EVAL_MODE",)
STEPS = 200
EPOCH = 25
TRAIN, HELD_OUT = 200, 300


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    x_train, y_train = x[:TRAIN], y[:TRAIN]
    x_val, y_val = x[-HELD_OUT:], y[-HELD_OUT:]
    model = nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Dropout(0.5),
                          nn.Linear(256, 256), nn.ReLU(), nn.Dropout(0.5), nn.Linear(256, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.CrossEntropyLoss()
    model.train()
    with nd.watch(model, optimizer, **watch) as mon:
        for step, (xb, yb) in enumerate(batches(x_train, y_train, steps, batch_size=32)):
            if fixed and step % EPOCH == 0:
                model.train()                # BUG when not fixed: missing
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
            if step % EPOCH == EPOCH - 1:    # the evaluation epoch
                model.eval()
                with torch.no_grad():
                    loss_fn(model(x_val), y_val)
    return mon
