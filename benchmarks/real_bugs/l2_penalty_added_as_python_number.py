"""A hand-written L2 penalty computed as a Python number: the squared weights are summed
with .item(), so the penalty is added to the printed loss but carries no gradient, and the
regression is trained exactly as without it (the "regularised" loss just looks higher).

Reported: "chapter14 -Problem in Regularization_loss" -
https://github.com/Sentdex/nnfs_book/issues/14 (the reporter: the regularisation loss is
computed and summed with the data loss, but the backward pass starts from the data loss
alone, so the penalty's effect never enters the gradients). Here a linear model on 60 rows
of a noisy 50-feature regression (5 features matter), full-batch Adam; the penalty weight
is 0.05. Fix: build the penalty from the weight tensor, (w ** 2).sum(), so backward sees it.

Measured (held-out mean squared error on 1000 rows; the noise alone gives 1.0): seed 0:
5.74 for the bug against 2.79 for the fixed twin; seeds + 1000: 5.44 against 2.86.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._regularisation_beginner import held_out_mse, noisy_regression

TITLE = "chapter14 -Problem in Regularization_loss"
LINK = "https://github.com/Sentdex/nnfs_book/issues/14"
EXPECTED = ("LOSS_TERM_WITHOUT_GRADIENT",)
STEPS = 300
LAMBDA = 0.05


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, xh, yh = noisy_regression()
    model = nn.Linear(x.shape[1], 1)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.02)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            optimizer.zero_grad()
            data_loss = ((model(x).squeeze(-1) - y) ** 2).mean()
            if fixed:
                penalty = (model.weight ** 2).sum()
            else:                                   # BUG: a Python float, no gradient
                penalty = (model.weight ** 2).sum().item()
            loss = data_loss + LAMBDA * penalty
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_mse = held_out_mse(model, xh, yh)
    return mon
