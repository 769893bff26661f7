"""Pieces the batch-323 cases (recurrent cells written by hand from first tutorials) share:
the 'adding problem' of the LSTM literature (``_rnn170.adding_problem``: 12 steps of
(value, marker), two steps marked, the target the sum of the two marked values), fresh
sequences every step, and the loop that trains a read-out of the last hidden state on it
under nndebug and scores held-out mean squared error on 1,000 fresh sequences (predicting
the mean scores about 1/6 = 0.167).
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._rnn170 import adding_problem

LENGTH, BATCH, HIDDEN = 12, 64, 32


def train_adder(model, steps, seed=0, lr=3e-3, parameters=None, **watch):
    """Adam on ``parameters`` (the model's own, by default), batch 64, one fresh batch of
    sequences per step; returns the closed monitor with ``held_out_mse`` set."""
    rng = np.random.default_rng(seed)
    x, y = adding_problem(steps * BATCH, LENGTH, rng)
    x_test, y_test = adding_problem(1000, LENGTH, rng)
    if parameters is None:
        parameters = model.parameters()
    optimizer = torch.optim.Adam(parameters, lr=lr)
    with nd.watch(model, optimizer, **watch) as mon:
        for step in range(steps):
            rows = slice(step * BATCH, (step + 1) * BATCH)
            loss = nn.functional.mse_loss(model(x[rows]), y[rows])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        mon.held_out_mse = nn.functional.mse_loss(model(x_test), y_test).item()
    return mon
