"""The validation pass runs with the model in training mode (model.train() where
model.eval() belongs): batch norm normalises each validation batch with its own statistics
and folds them into its running averages, so the validation data leaks into the model that
is kept, and dropout keeps dropping while the model is scored.

Reported: "`model.train()` usage" -
https://github.com/princeton-vl/pytorch_stacked_hourglass/issues/44 ("The code uses
model.train() during both train and valid phases, wouldn't this effect the running stats for
batchnorm layers ... wouldn't it lead to data leakage?"; the maintainer: "if indeed
batchnorm is in train mode on the val set that could result in leakage"). Here a digits MLP
with batch norm and dropout, validated under torch.no_grad() after every epoch, the model
left in training mode. Fix: model.eval() for the validation pass, model.train() after it.
"""
import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "`model.train()` usage"
LINK = "https://github.com/princeton-vl/pytorch_stacked_hourglass/issues/44"
EXPECTED = ("VALIDATION_IN_TRAIN_MODE",)
STEPS = 150
EPOCH = 22           # batches of 64 in the training split


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    order = torch.randperm(len(x), generator=torch.Generator().manual_seed(0))
    cut = int(0.8 * len(x))
    x_train, y_train = x[order[:cut]], y[order[:cut]]
    x_val, y_val = x[order[cut:]], y[order[cut:]]
    model = nn.Sequential(nn.Linear(64, 64), nn.BatchNorm1d(64), nn.ReLU(), nn.Dropout(0.3),
                          nn.Linear(64, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for done, (xb, yb) in enumerate(batches(x_train, y_train, steps), start=1):
            optimizer.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            val_loss = None
            if done % EPOCH == 0 or done == steps:
                if fixed:
                    model.eval()
                # BUG (unfixed): the model stays in training mode for validation
                with torch.no_grad():
                    val_loss = F.cross_entropy(model(x_val), y_val)
                model.train()
            mon.step(loss, val_loss=val_loss)
    return mon
