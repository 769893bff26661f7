"""Flattening a stack of images (m, height, width, channels) into the column-per-example
matrix a from-scratch logistic regression wants with ``x.reshape(h * w * c, m)`` instead
of ``x.reshape(m, -1).T``: the reshape keeps memory order, so every "example" column is
a run of pixels taken across several different images, while the labels stay in image
order. The classifier trains on pixel soup: it fits the training rows somewhat and is
near chance on the held-out images (flattened the same wrong way).

Reported: "Course1 - Week 2 - PA 2 - Logistic Regression with a Neural Network mindset" -
https://github.com/amanchadha/coursera-deep-learning-specialization/issues/23
("the author uses train_set_x_flatten = train_set_x_orig.reshape(
train_set_x_orig.shape[1]*train_set_x_orig.shape[2]*train_set_x_orig.shape[3],
train_set_x_orig.shape[0]), which fails in making every colum as a training example and
a wrong result of train accuracy and test accuracy"; a reply: "You are correct, the
training and testing examples should be reshaped as reshape(shape[0], -1).T"). Here the
8x8 digits as 8-bit images (m, 8, 8, 1), the assignment's pipeline (flatten, divide by
255, one sigmoid unit from zero weights, full-batch gradient descent - lr 0.5 for 300
steps here in place of the assignment's 0.005 for 2000), a binary task (digit 0-4
against 5-9) in place of cat against non-cat, held-out accuracy on 400 images. Fix:
flatten with ``reshape(m, -1).T``.

Measured (held-out accuracy, bug vs fixed): seed 0: 0.48 vs 0.873; seeds + 1000: 0.517
vs 0.882.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._prep import raw_digits

TITLE = "Course1 - Week 2 - PA 2 - Logistic Regression with a Neural Network mindset"
LINK = "https://github.com/amanchadha/coursera-deep-learning-specialization/issues/23"
EXPECTED = ("RESHAPE_USED_AS_TRANSPOSE",)
STEPS = 300
LR = 0.5


def flatten(images, fixed):
    """(m, h, w, c) images -> (h * w * c, m), one column per example, scaled to [0, 1]."""
    m = images.shape[0]
    if fixed:
        columns = images.reshape(m, -1).T
    else:                                    # BUG when not fixed: memory order kept,
        columns = images.reshape(-1, m)      # columns straddle several images
    return columns / 255.0


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_test, y_test = raw_digits(images=True)
    x, x_test = x.permute(0, 2, 3, 1), x_test.permute(0, 2, 3, 1)    # (m, h, w, c)
    y, y_test = (y >= 5).float(), (y_test >= 5).float()
    train_columns, test_columns = flatten(x, fixed), flatten(x_test, fixed)
    model = nn.Linear(64, 1)
    nn.init.zeros_(model.weight)
    nn.init.zeros_(model.bias)
    optimizer = torch.optim.SGD(model.parameters(), lr=LR)
    loss_fn = nn.BCEWithLogitsLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            optimizer.zero_grad()
            loss = loss_fn(model(train_columns.T).squeeze(1), y)
            loss.backward()
            optimizer.step()
            mon.step(loss)
        with torch.no_grad():
            predicted = (model(test_columns.T).squeeze(1) > 0).float()
        mon.held_out_accuracy = round(float((predicted == y_test).float().mean()), 3)
    return mon
