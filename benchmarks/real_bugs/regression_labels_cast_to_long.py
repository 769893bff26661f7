"""Regression labels turned into a tensor with the dtype that suits classification labels,
``torch.tensor(labels, dtype=torch.long)``: every score is truncated towards zero (2.7 ->
2, 0.9 -> 0) without a word. The model then learns the truncated scores - a staircase
under the real ones - and the loss it prints is measured against them, so it looks fine.

Reported: "Regression label float to int conversion bug" -
https://github.com/deepset-ai/FARM/issues/395 ("causes float labels in RegressionProcessor
to be converted to longs ... Silent error, all my regression labels are being converted to
longs"; the maintainer: "I can reproduce the bug - very strange that torch can cast a float
to long quietly"). Here a continuous score of each 8x8 digit (its amount of ink, 10 x its mean grey
level, about 1.5 to 4.5) predicted by an MLP with MSE; the labels
go through the classification-style conversion, and the regression head takes
``labels.float()`` as FARM's does. Fix: keep regression labels float
(``torch.tensor(labels, dtype=torch.float32)``).

Measured (300 steps, 297 held-out digits, MSE against the TRUE scores): 0.188 for the bug,
0.001 for the fixed twin; the bug's own printed training loss (against the truncated labels)
ends at 0.096.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "Regression label float to int conversion bug"
LINK = "https://github.com/deepset-ai/FARM/issues/395"
EXPECTED = ("REGRESSION_TARGETS_TRUNCATED",)
STEPS = 300
HELD_OUT = 297       # the last rows of the digits, never trained on


def scores():
    """Each digit's amount of ink (10 x its mean grey level, about 1.5 to 4.5) as a list of
    floats, as a data set's label column would arrive."""
    x, _ = classification()
    return x, (10 * x.mean(1)).tolist()


def label_tensor(labels, fixed):
    if fixed:
        return torch.tensor(labels, dtype=torch.float32)
    return torch.tensor(labels, dtype=torch.long)    # BUG: 2.7 -> 2, 0.9 -> 0


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, labels = scores()
    y = label_tensor(labels, fixed)
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)

    def loss_fn(out, yb):
        return nn.functional.mse_loss(out.squeeze(1), yb.float())
    mon = train_watched(model, optimizer, loss_fn,
                        batches(x[:-HELD_OUT], y[:-HELD_OUT], steps), **watch)
    true = torch.tensor(labels[-HELD_OUT:])
    with torch.no_grad():
        mon.accuracy = round(float(((model(x[-HELD_OUT:]).squeeze(1) - true) ** 2).mean()), 3)
    return mon
