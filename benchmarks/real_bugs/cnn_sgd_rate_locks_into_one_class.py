"""A small CNN trained with SGD at a rate too high for it: within a few steps the ReLU
units die, the classifier answers one class for every image and the loss stays at ln(10).

Reported: "Cifar10 example sometimes only predicts 1 class and does not improve" -
https://github.com/keras-team/keras/issues/4066 ("it sometimes locks into a situation
where it only predicts a single class and accuracy fixes at 0.1"; the answers: "I solved
using Adam instead of SGD" - "by changing the optimizer to Adam ... is by default using a
smaller learning rate 0.001"). Here a two-convolution CNN on the 8x8 digits, SGD with
Nesterov momentum at 0.5.
Fix: Adam at its default rate, 1e-3.

Measured (200 steps, 297 held-out digits, ``mon.held_out_accuracy``): the bug's accuracy
is 0.09 (one class for every image), the fixed twin's 0.89.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "Cifar10 example sometimes only predicts 1 class and does not improve"
LINK = "https://github.com/keras-team/keras/issues/4066"
EXPECTED = ("LR_TOO_HIGH", "DEAD_RELU")
STEPS = 200
HELD_OUT = 297


def cnn():
    return nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(),
                         nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Linear(32 * 16, 64), nn.ReLU(), nn.Linear(64, 10))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification(images=True)
    x_train, y_train, x_test, y_test = x[:-HELD_OUT], y[:-HELD_OUT], x[-HELD_OUT:], y[-HELD_OUT:]
    model = cnn()
    if fixed:
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    else:   # BUG: SGD at a rate the network cannot take
        optimizer = torch.optim.SGD(model.parameters(), lr=0.5, momentum=0.9, nesterov=True)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x_train, y_train, steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        mon.held_out_accuracy = round(float((model(x_test).argmax(1) == y_test).float().mean()), 3)
    return mon
