"""A first MNIST network with ONE sigmoid output unit trained with binary cross-entropy on
the digit labels 0-9: the targets lie outside the output's [0, 1] range, so the loss has
no minimum - it falls below zero by pushing the output to 1 for every digit but 0 - and
the "classifier" can only ever answer 0 or 1.

Reported: "Too low accuracy on MNIST dataset using a neural network" -
https://datascience.stackexchange.com/questions/38604/too-low-accuracy-on-mnist-dataset-using-a-neural-network
(``output_nodes = 1``, ``Dense(output_nodes, activation='sigmoid')``,
``loss='binary_crossentropy'`` on the labels 0-9; the loss prints as -55.03 and the
accuracy stays at 0.11 "like random guessing"). Here the 8x8 digits, a 64-64-1 MLP with
Adam, 200 steps of 32; torch's ``BCELoss`` refuses targets above 1, so the sigmoid and
the binary cross-entropy are the fused ``BCEWithLogitsLoss``, which (like Keras) accepts
them. Fix: ten output units and cross-entropy on the class indices.

Measured (held-out accuracy on 400 digits, bug (output rounded) vs fixed): seed 0: 0.10
vs 0.91; seeds + 1000: 0.10 vs 0.91.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._beginner_cls import split_digits
from benchmarks.real_bugs._common import batches

TITLE = "Too low accuracy on MNIST dataset using a neural network"
LINK = ("https://datascience.stackexchange.com/questions/38604/"
        "too-low-accuracy-on-mnist-dataset-using-a-neural-network")
EXPECTED = ("TARGETS_OUTSIDE_OUTPUT_RANGE", "LOSS_UNBOUNDED_BELOW", "TARGETS_OUT_OF_RANGE")
STEPS = 200


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_test, y_test = split_digits()
    outputs = 10 if fixed else 1                 # BUG: one output node for ten classes
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, outputs))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss() if fixed else nn.BCEWithLogitsLoss()   # sigmoid + BCE
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps, batch_size=32):
            optimizer.zero_grad()
            out = model(xb)
            loss = loss_fn(out, yb) if fixed else loss_fn(out.squeeze(1), yb.float())
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        out = model(x_test)
        guess = out.argmax(1) if fixed else (out.squeeze(1) > 0).long()   # sigmoid > 0.5
    mon.held_out_accuracy = (guess == y_test).float().mean().item()
    return mon
