"""A binary classifier on data where one row in six is positive, trained with an unweighted
BCE loss: the cheapest answer is "always negative", the noisy features never pull a
positive above one half, and nearly every prediction comes out 0 while the loss looks
settled.

Reported: "Predictions stuck at zero when positive label (1) is only 16% of data" -
https://discuss.pytorch.org/t/predictions-stuck-at-zero-when-positive-label-1-is-only-16-of-data/145203
("when I run the code on a dataset with 84/16 % split of labels 0 and 1, all my val preds
end up being 0"; the answer: BCEWithLogitsLoss with pos_weight, the ratio of negatives to
positives). Here the positives are the 9s of a noisy scan of the digits (pixel noise), the
negatives the other digits' images, subsampled so that positives are 16% of the rows; plain
SGD on an MLP, and after 150 steps 98% of the positives are predicted negative (the fixed
twin finds 86% of them).
Fix: ``BCEWithLogitsLoss(pos_weight=negatives / positives)``.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, mlp

TITLE = "Predictions stuck at zero when positive label (1) is only 16% of data"
LINK = ("https://discuss.pytorch.org/t/predictions-stuck-at-zero-when-positive-label-1-is-"
        "only-16-of-data/145203")
EXPECTED = ("RARE_POSITIVES_NEVER_PREDICTED",)
STEPS = 150
POSITIVE_SHARE = 0.16   # the report's share of positive rows
NOISE = 1.5             # pixel noise: the positives are hard to tell from the rest


def data():
    """(x, y): noisy digit pixels, y 1.0 for the 9s, 16% of the rows."""
    g = torch.Generator().manual_seed(0)
    x, digit = classification()
    x = x + NOISE * torch.randn(x.shape, generator=g)
    positive = digit == 9
    pos_rows = torch.nonzero(positive).squeeze(1)
    neg_rows = torch.nonzero(~positive).squeeze(1)
    keep = int(len(pos_rows) * (1 - POSITIVE_SHARE) / POSITIVE_SHARE)
    neg_rows = neg_rows[torch.randperm(len(neg_rows), generator=g)[:keep]]
    rows = torch.cat([pos_rows, neg_rows])
    return x[rows], positive[rows].float()


def loss_for(y, fixed):
    if not fixed:
        return nn.BCEWithLogitsLoss()             # BUG: the rare positives weigh like the rest
    pos_weight = (y == 0).sum() / (y == 1).sum()
    return nn.BCEWithLogitsLoss(pos_weight=pos_weight)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = data()
    model = mlp(outputs=1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    loss_fn = loss_for(y, fixed)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb).squeeze(1), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
