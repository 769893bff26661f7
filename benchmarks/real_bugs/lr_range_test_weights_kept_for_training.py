"""A learning-rate range test run on the model that is then trained: the test raises the
rate step after step until the loss blows up, and leaves the weights where the blow-up put
them; the real training then starts from those weights instead of from an initialisation.

Reported: "Learning Rate Finder doesn't reset model parameters" -
https://github.com/Lightning-AI/pytorch-lightning/issues/6675 ("LR finder does not reset
model state after running. For big enough values of max_lr for the model to diverge, if
training starts right after lr tuning, model diverges"; a maintainer: "You're right, we
don't do that"; the same in davidtvs/pytorch-lr-finder#11, where training after the finder
"appears to hurt the model's learning" and restoring the weights fixes it). Here a digits
MLP goes through an exponential range test (SGD, lr 1e-4 -> 10 over 100 steps), then
trains with SGD 0.05 under watch.

Measured (seed shift 0): the range test's loss rises to 57.6 at its end and leaves the
first layer's weight norm at 53.1 (4.6 at initialisation); training from there starts at
a loss of 2.40 and ends at 2.16 (last 10 steps; chance is 2.30); the fixed twin starts at
2.31 and ends at 0.68. Fix: keep a deep copy
of the weights (and the optimizer state) before the range test and load it back after, or
run the test on a copy of the model. (The first commit of this script kept that copy in
the bug run too, unused, which the report's code does not have; it drew
PRETRAINED_WEIGHTS_NOT_LOADED from that snapshot. It is made in the fixed twin only now.)
"""
import copy

import torch
import torch.nn.functional as F

from benchmarks.real_bugs._common import batches, classification, mlp, train_watched

TITLE = "Learning Rate Finder doesn't reset model parameters"
LINK = "https://github.com/Lightning-AI/pytorch-lightning/issues/6675"
EXPECTED = ("WEIGHTS_FROM_DIVERGED_RUN",)
STEPS = 300
RANGE_STEPS = 100
START_LR, END_LR = 1e-4, 10.0


def range_test(model, x, y):
    """Losses at exponentially rising learning rates (what an LR finder plots)."""
    optimizer = torch.optim.SGD(model.parameters(), lr=START_LR)
    factor = (END_LR / START_LR) ** (1 / RANGE_STEPS)
    losses = []
    for xb, yb in batches(x, y, RANGE_STEPS, seed=1):
        optimizer.zero_grad()
        loss = F.cross_entropy(model(xb), yb)
        loss.backward()
        optimizer.step()
        losses.append(float(loss))
        for group in optimizer.param_groups:
            group["lr"] *= factor
    return losses


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    # BUG when not fixed: nothing keeps the weights, and the range test's are trained from
    before = copy.deepcopy(model.state_dict()) if fixed else None
    range_test(model, x, y)
    if fixed:
        model.load_state_dict(before)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    return train_watched(model, optimizer, torch.nn.CrossEntropyLoss(),
                         batches(x, y, steps, seed=2), **watch)
