"""A matrix-factorisation training loop with no ``optimizer.zero_grad()``: every
``loss.backward()`` adds the batch's gradient to what the embeddings' ``.grad`` already
hold, so each SGD step moves every user and item vector by the sum of all the gradients
seen so far. The rows of the users and items met early keep being pushed in their first
direction long after their error has changed sign, and the sum keeps growing: the
factorisation drifts instead of settling, and the held-out ratings are predicted worse
than by a model that was zeroed every step. The training loss still prints and moves.

Reported: the "Matrix Factorization in PyTorch" post -
https://www.ethanrosenthal.com/2017/06/20/matrix-factorization-in-pytorch/ (its training
loop - ``prediction = model(row, col); loss = loss_func(prediction, rating);
loss.backward(); optimizer.step()`` over the observed ratings with ``torch.optim.SGD`` -
had no ``optimizer.zero_grad()``; the post's "Update 8/4/2020: Added missing
optimizer.zero_grad() call" fixed it, after readers copied the loop).
Here the post's model (dot product of a user and an item vector, 8 wide, plus a user and
an item bias and a global offset) on synthetic explicit ratings (300 users, 200 items,
ratings 1-5 from a rank-4 taste plus biases and noise, 12% of cells observed, 20% of them
held out), MSE, SGD 0.05, batches of 64 ratings, 300 steps. Fix: ``optimizer.zero_grad()``
before each backward.

Measured (held-out RMSE of the predicted ratings, lower is better): seed 0: 3.21 with
the bug, 0.87 fixed (the held-out ratings' own standard deviation: 0.93); seeds shifted
by 1000: 2.76 against 0.84.
"""
import numpy as np
import torch

import nndebug as nd
from benchmarks.real_bugs._tab152 import BiasedMF, explicit_ratings

TITLE = "Matrix Factorization in PyTorch (Update: added missing optimizer.zero_grad() call)"
LINK = "https://www.ethanrosenthal.com/2017/06/20/matrix-factorization-in-pytorch/"
EXPECTED = ("GRADIENTS_ACCUMULATING",)
BATCH = 64
STEPS = 300


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, test = explicit_ratings(np.random.default_rng(0))
    model = BiasedMF(300, 200, dim=8)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    loss_fn = torch.nn.MSELoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            index = torch.randint(len(train[2]), (BATCH,))
            users, items, ratings = (part[index] for part in train)
            if fixed:
                optimizer.zero_grad()          # the fix; the bug never zeroes
            loss = loss_fn(model(users, items), ratings)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        mon.held_out_rmse = float(((model(test[0], test[1]) - test[2]) ** 2).mean().sqrt())
    return mon
