"""Labels shuffled separately from their inputs: the model is asked to learn noise."""
import numpy as np
import torch
from torch import nn

import nndebug as nd
from nndebug.zoo.common import batches, digits

NAME = "torch/shuffled-labels"
FRAMEWORK = "torch"
EXPECTED = "LOSS_AT_CHANCE"
DESCRIPTION = ("x and y were shuffled with two different permutations, so each label belongs to "
               "another image. Weights update and gradients flow normally, yet the loss stays "
               "at ln(10), the value of a uniform guess.")
FIX = "Shuffle inputs and labels with the same permutation (or shuffle indices, then index both)."
STEPS = 150


def run(steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = digits()
    rng = np.random.default_rng(0)
    x = x[rng.permutation(len(x))]
    y = y[rng.permutation(len(y))]   # BUG: a second, different permutation for the labels
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
