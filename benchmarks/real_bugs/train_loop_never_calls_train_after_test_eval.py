"""An epoch loop of ``train(...)`` then ``test(...)`` where ``test`` switches the model to
evaluation mode (as it should) but ``train`` never switches it back: only the first epoch
trains in training mode. From the second epoch on dropout is off and batch norm normalises
with the running statistics it collected in epoch one (and stops updating them), so every
later step trains a different network from the one the first epoch shaped, against stale
statistics. Nothing errors, the loss keeps falling.

Reported: "[quickstart_tutorial] why model.eval() in not turn off at training stage" -
https://github.com/pytorch/tutorials/issues/1624 (the PyTorch quickstart's loop calls
``train`` and ``test`` each epoch; ``test`` calls ``model.eval()`` and nothing calls
``model.train()`` again, so from the second epoch training runs in evaluation mode; the fix
the reporter proposes: ``model.train()`` at the top of ``train``). Here an MLP with batch
norm and dropout on the digits (SGD, lr 0.3, momentum 0.9), epochs of 15 batches each
followed by a held-out test pass in eval mode. Fix: ``model.train()`` at the start of each
epoch's training.

Measured (accuracy on 300 digits never trained on): seed 0: 0.09 with the bug (the run in
eval mode diverges to NaN) against 0.94 for the fixed twin; seeds shifted by 1000: 0.80
against 0.90. At lr 0.1 the harm is nil (0.92 against 0.91): the stale statistics bite
when the weights move fast.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "[quickstart_tutorial] why model.eval() in not turn off at training stage"
LINK = "https://github.com/pytorch/tutorials/issues/1624"
EXPECTED = ("TRAINING_IN_EVAL_MODE",)
STEPS = 300
EPOCH = 15
TEST = 300


def test(model, x, y):
    model.eval()
    with torch.no_grad():
        return (model(x).argmax(1) == y).float().mean().item()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    x_train, y_train, x_test, y_test = x[:-TEST], y[:-TEST], x[-TEST:], y[-TEST:]
    model = nn.Sequential(nn.Linear(64, 128), nn.BatchNorm1d(128), nn.ReLU(), nn.Dropout(0.5),
                          nn.Linear(128, 128), nn.BatchNorm1d(128), nn.ReLU(), nn.Dropout(0.5),
                          nn.Linear(128, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.3, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for step, (xb, yb) in enumerate(batches(x_train, y_train, steps), start=0):
            if step % EPOCH == 0 and fixed:
                model.train()                 # the fix: back to training mode each epoch
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
            if (step + 1) % EPOCH == 0:
                test(model, x_test, y_test)   # BUG: leaves the model in eval mode
    mon.held_out_accuracy = test(model, x_test, y_test)
    return mon
