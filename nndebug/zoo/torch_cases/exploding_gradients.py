"""Exploding gradients from regression targets left in their raw units."""
import numpy as np
import torch
from torch import nn

import nndebug as nd
from nndebug.zoo.common import batches

NAME = "torch/exploding-gradients"
FRAMEWORK = "torch"
EXPECTED = "EXPLODING_GRADIENTS"
DESCRIPTION = ("A price-like target around 50,000 is regressed with MSE without scaling: the "
               "loss is in the billions, its gradients are ten thousand times larger than the "
               "weights and the first SGD steps throw the network into NaN. The activations "
               "themselves are perfectly normal.")
FIX = ("Standardise the targets (subtract the mean, divide by the std) and un-scale the "
       "predictions; clip the gradient norm as a safety net.")
STEPS = 60


def make_data(n=2000, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 16)).astype(np.float32)
    price = 50_000 + 20_000 * np.tanh(x @ rng.normal(size=16) / 4)
    return x, price.astype(np.float32).reshape(-1, 1)


def run(steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = make_data()   # BUG: y is used in raw units (tens of thousands), not standardised
    model = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(),
                          nn.Linear(64, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
    loss_fn = nn.MSELoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
