"""The evaluation at the end of each epoch calls net.eval() and training never calls
net.train() again: from the second epoch on, dropout is off and batch norm is frozen.

Reported: "Why to freeze BatchNorm after the second epoch" -
https://github.com/HuiZeng/Grid-Anchor-based-Image-Cropping-Pytorch/issues/2 (the author:
"I have checked code and found this is indeed a bug"). Fix: net.train() at the start of
every training epoch.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "Why to freeze BatchNorm after the second epoch"
LINK = "https://github.com/HuiZeng/Grid-Anchor-based-Image-Cropping-Pytorch/issues/2"
EXPECTED = ("TRAINING_IN_EVAL_MODE",)
STEPS = 150
EPOCH = 25          # steps per "epoch" (a short epoch keeps the case fast)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    x_test, y_test = x[-300:], y[-300:]
    model = nn.Sequential(nn.Linear(64, 64), nn.BatchNorm1d(64), nn.ReLU(), nn.Dropout(0.3),
                          nn.Linear(64, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for step, (xb, yb) in enumerate(batches(x, y, steps)):
            if step % EPOCH == 0:
                if fixed or step == 0:
                    model.train()            # BUG when not fixed: only before the first epoch
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
            if step % EPOCH == EPOCH - 1:    # end of an epoch: test
                model.eval()
                with torch.no_grad():
                    loss_fn(model(x_test), y_test)
    return mon
