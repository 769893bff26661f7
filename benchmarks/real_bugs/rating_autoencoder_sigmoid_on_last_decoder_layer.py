"""A rating autoencoder (user's row of star ratings in, the same row out, loss only on the
ratings given) whose decoder applies the hidden layers' activation to its last layer too:
with the sigmoid as that activation every predicted rating is squeezed into (0, 1), while
the ratings are 1 to 5 stars. The masked loss still falls (the outputs rise to the sigmoid's
ceiling), nothing errors, and every prediction sits near 1 star.

Reported: "fix bug where the non-linear activation is also applied on the last decoding
layer" - https://github.com/NVIDIA/DeepRecommender/pull/4 (the decoder's off-by-one
``self._last = len(layer_sizes) - 1`` meant the last layer was never recognised as last, so
it got the activation too; "run ... AutoEncoder with nl_type set to sigmoid, it will
perform badly because the last layer is computing values in the range of [0,1] which does
not correspond to the range of ratings"; merged, the maintainer: "This is indeed a bug.
Which invalidates sigmoid and tanh results"). Here a 600-user, 100-item synthetic rating
matrix with low-rank taste, 30% observed, 15% of those held out; the autoencoder
100-64-32-64-100 with SELU hidden layers and the sigmoid after its last layer; the repo's
masked MSE (summed over the given ratings, divided by their count), Adam at 1e-3, batches of
32 users. Fix: no activation after the last decoding layer.

Measured (400 steps; RMSE on the held-out ratings, predicted from each user's training
row; predicting the global mean scores 1.23): seed 0, 2.38 for the bug against 0.89 for the
fixed twin; seeds shifted by 1000, 2.35 against 0.88.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._beginner_autoencoder import ratings
from benchmarks.real_bugs._common import index_batches

TITLE = "fix bug where the non-linear activation is also applied on the last decoding layer"
LINK = "https://github.com/NVIDIA/DeepRecommender/pull/4"
EXPECTED = ("TARGETS_OUTSIDE_OUTPUT_RANGE",)
STEPS = 400


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, stars, held = ratings()
    items = train.shape[1]
    layers = [nn.Linear(items, 64), nn.SELU(), nn.Linear(64, 32), nn.SELU(),
              nn.Linear(32, 64), nn.SELU(), nn.Linear(64, items)]
    if not fixed:
        layers.append(nn.Sigmoid())         # BUG: the activation on the last layer too
    model = nn.Sequential(*layers)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(train), steps, 32):
            rows = train[index]
            given = (rows != 0).float()
            loss = ((model(rows) - rows) ** 2 * given).sum() / given.sum()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        mon.held_out_rmse = ((model(train) - stars)[held] ** 2).mean().sqrt().item()
    return mon
