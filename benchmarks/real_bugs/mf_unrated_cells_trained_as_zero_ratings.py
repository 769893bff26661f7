"""A rating matrix factorised with its missing cells filled with 0: the user x item matrix
of 1-5 star ratings is pivoted from the observed ratings, ``fillna(0)`` turns every
unrated cell into a rating of zero, and the factorisation is trained with squared error
on every cell. Nine cells in ten are unrated, so the model learns above all that ratings
are 0: it reproduces the zeros it was given, and the ratings it predicts for the unrated
cells - the ones a recommender exists to fill in - are pulled far below any real rating.
The loss falls smoothly (the zeros are easy to fit), nothing is NaN, nothing complains.

Reported: "How matrix factorization helps with recommendations when it converges to the
initial matrix?" - https://ai.stackexchange.com/questions/31996 (the missing ratings of
a user-item matrix replaced with 0 before factorising it, "no matter how I change the
parameters, I can't seem to find a matrix that has actual values in place of 0s"; the
answer: the unknown entries must be left out of the objective - the loss sums over the
observed ratings only - otherwise the factorisation is fitted to the zeros as if they
were ratings).
Here a biased matrix factorisation (rank 8, user and item biases) of a synthetic
low-rank 300 x 200 rating matrix of which 12% is observed (80% of those trained, 20% held
out), Adam 0.01, batches of 256 cells. Bug: the batches are drawn from every cell of the
zero-filled matrix; fix: from the observed training ratings only.

Measured (held-out RMSE on the ratings kept out of training, in stars): seed 0: 3.03
with the bug, 0.77 fixed; seeds shifted by 1000: 3.04 against 0.72. The bug run's mean
held-out prediction is 0.33 stars (0.32 shifted) where the fixed twin's is 3.1.
"""
import numpy as np
import torch

import nndebug as nd
from benchmarks.real_bugs._tab152 import BiasedMF, explicit_ratings

TITLE = ("How matrix factorization helps with recommendations when it converges to the "
         "initial matrix?")
LINK = "https://ai.stackexchange.com/questions/31996"
EXPECTED = ("MISSING_VALUES_FILLED_AS_TARGETS",)
STEPS = 600
BATCH = 256
USERS, ITEMS = 300, 200


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    (tu, ti, tr), (vu, vi, vr) = explicit_ratings(rng, USERS, ITEMS)
    if fixed:            # the fix: the loss reads the observed ratings only
        users, items, ratings = tu, ti, tr
    else:                # BUG: pivot + fillna(0) - every unrated cell becomes a 0 rating
        matrix = torch.zeros(USERS, ITEMS)
        matrix[tu, ti] = tr
        users = torch.arange(USERS).repeat_interleave(ITEMS)
        items = torch.arange(ITEMS).repeat(USERS)
        ratings = matrix.reshape(-1)
    model = BiasedMF(USERS, ITEMS)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    with nd.watch(model, optimizer, **watch) as mon:
        for step in range(steps):
            pick = torch.randint(0, len(ratings), (BATCH,))
            optimizer.zero_grad()
            loss = torch.nn.functional.mse_loss(model(users[pick], items[pick]), ratings[pick])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        predicted = model(vu, vi)
    mon.held_out_rmse = float(((predicted - vr) ** 2).mean().sqrt())
    mon.held_out_mean_prediction = float(predicted.mean())
    return mon
