"""The validation error of an early-stopping loop computed from ``argmax`` without an axis:
``probs.argmax()`` returns ONE index into the flattened (batch, classes) table, not a class
per row, so the "prediction" never matches the labels and the validation error sits near
1.0 however well the model does. The patience logic sees no improvement after its first
check and stops training long before the model has learnt the task.

Reported: "Fix argmax call in logreg tutorial docs to include axis=1." -
https://github.com/lisa-lab/DeepLearningTutorials/pull/15 ("the second to last code line
needs to read: y_pred = T.argmax(p_y_given_x, axis=1) instead of y_pred =
T.argmax(p_y_given_x) ... led to a very subtle bug, that I just a significant amount of
time hunting down ... At first glance, the code appears to run just fine"; merged). Here
the tutorial's multinomial logistic regression on the 8x8 digits, minibatch SGD with its
patience-based early stopping (validate every 20 steps, patience 60 steps, doubled on every
significant improvement), at most 300 steps. Fix: ``probs.argmax(dim=1)``.

Harm (held-out test accuracy of the trained model, bug vs fixed): 0.78 vs 0.91; seeds +
1000: 0.72 vs 0.90.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._shape_slips import minibatches, record, split

TITLE = "Fix argmax call in logreg tutorial docs to include axis=1."
LINK = "https://github.com/lisa-lab/DeepLearningTutorials/pull/15"
EXPECTED = ("VALIDATION_NEVER_IMPROVED",)
STEPS = 300
VALIDATE_EVERY = 20
PATIENCE = 60
PATIENCE_INCREASE = 2
IMPROVEMENT = 0.995


def errors(model, x, y, fixed):
    with torch.no_grad():
        probs = torch.softmax(model(x), dim=1)
    y_pred = probs.argmax(dim=1) if fixed else probs.argmax()     # BUG: no axis
    return (y_pred != y).float().mean().item()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x_train, y_train, x_test, y_test = split()
    x_train, y_train, x_valid, y_valid = x_train[:-300], y_train[:-300], x_train[-300:], \
        y_train[-300:]
    model = nn.Linear(64, 10)                      # the tutorial's LogisticRegression
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    loss_fn = nn.CrossEntropyLoss()
    best, patience = float("inf"), PATIENCE
    with nd.watch(model, optimizer, **watch) as mon:
        for step, index in enumerate(minibatches(len(x_train), steps, batch_size=32), 1):
            optimizer.zero_grad()
            loss = loss_fn(model(x_train[index]), y_train[index])
            loss.backward()
            optimizer.step()
            if step % VALIDATE_EVERY:
                mon.step(loss)
                continue
            this = errors(model, x_valid, y_valid, fixed)
            mon.step(loss, val_loss=this)
            if this < best:
                if this < best * IMPROVEMENT:
                    patience = max(patience, step * PATIENCE_INCREASE)
                best = this
            if patience <= step:
                break
    record("held-out accuracy", 1 - errors(model, x_test, y_test, fixed=True))
    return mon
