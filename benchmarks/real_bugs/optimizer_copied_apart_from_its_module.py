"""A fitted model and its optimizer are copied one after the other - ``copy.deepcopy`` of
each, as pickling an estimator that holds them separately does - so the copied optimizer
holds copies of the parameters that belong to no model: training the copied model goes on
calling ``step()`` on tensors the model never reads, and its weights stay frozen.

Reported: "module weights don't update after copy.deepcopy" -
https://github.com/skorch-dev/skorch/issues/317 ("When a model is copied with
copy.deepcopy, the weights are frozen and don't update when fit is called"; the fix,
skorch#318 "make sure copy links weights and optimizer", and the reviewer's test: "check
that the optimizer references the same parameters as used by the module ... assert p0 is
p1"). Here a digits MLP fitted for a few steps, copied, and the copy trained on.

Measured (150 steps after the copy): the bug's last-20 training loss 2.26, unchanged from
the copy's first 5 steps (2.27, the short first fit had barely moved it); the fixed twin
0.33.
Fix: copy the model and the optimizer together (one ``deepcopy`` of both, so the memo links
them), or build the copy's optimizer from the copied model's parameters and load the
original's ``state_dict()`` into it.
"""
import copy

import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, mlp, train_watched

TITLE = "module weights don't update after copy.deepcopy"
LINK = "https://github.com/skorch-dev/skorch/issues/317"
EXPECTED = ("OPTIMIZER_MISSING_PARAMS",)
STEPS = 150
FIRST_FIT = 10


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.02, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    for xb, yb in batches(x, y, FIRST_FIT, seed=1):          # the first, partial fit
        optimizer.zero_grad()
        loss_fn(model(xb), yb).backward()
        optimizer.step()
    if fixed:
        model_copy, optimizer_copy = copy.deepcopy((model, optimizer))   # one memo: linked
    else:
        model_copy = copy.deepcopy(model)
        optimizer_copy = copy.deepcopy(optimizer)    # BUG: copied on its own - its params
                                                     # are fresh copies no model reads
    return train_watched(model_copy, optimizer_copy, loss_fn, batches(x, y, steps), **watch)
