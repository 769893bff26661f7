"""A regressor that works on the logarithm of its targets (a multiplicative model: it
fits log levels) is given targets first min-max scaled to [0, 1]: the smallest training
target becomes exactly 0 and its log minus infinity. Every batch holding that row has an
infinite squared error, its gradient is infinite or NaN, and after the first such batch
the weights are NaN: the loss and the predictions stay NaN.

Reported: "Negative or very small positive values produce nan values of loss and metric
during training" - https://github.com/kdgutier/esrnn_torch/issues/18 (the user had
changed the target's range "into 0-1 using minmaxscaler"; the maintainer: "Multiplicative
regression models like ESRNN estimate the parameters on log transformed data, if one
uses negative values the logarithms will fail ... translate (to make positive) and then
transform (scaling)"; the user: "the data is translated to positive by adding the value
with absolute of min value and add 10 ... it works"). Here an MLP on the digits' pixels
regressing the log of a positive quantity derived from the digit (1 + value + noise),
min-max scaled before the log as in the report.

Measured (300 steps, 297 held-out digits): the bug's loss is infinite from the first
batch holding the minimum row (step 18 here) and NaN after it; the weights end NaN and so
do all held-out predictions. The fixed twin (min-max scaled, then shifted by +1 before
the log, so the log lies in [0, ln 2]) reaches a held-out RMSE of 0.12 in log units
against the targets' spread of 0.21.
Fix: keep every value strictly positive before a log (shift by a constant, or log1p), or
scale after the log rather than before it.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, mlp, train_watched

TITLE = ("Negative or very small positive values produce nan values of loss and metric "
         "during training")
LINK = "https://github.com/kdgutier/esrnn_torch/issues/18"
EXPECTED = ("NONFINITE_TARGETS",)
STEPS = 300
HELD_OUT = 297


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, digits = classification()
    quantity = 1 + digits.float() + 0.3 * torch.rand(len(digits))
    fit = quantity[:-HELD_OUT]                         # the scaler fit on the training rows
    scaled = (quantity - fit.min()) / (fit.max() - fit.min())                  # min-max
    if fixed:
        target = torch.log(scaled + 1)                 # shifted positive before the log
    else:
        target = torch.log(scaled)                     # BUG: the minimum maps to log(0)
    target = target.unsqueeze(1)
    model = mlp(outputs=1)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    mon = train_watched(model, optimizer, nn.MSELoss(),
                        batches(x[:-HELD_OUT], target[:-HELD_OUT], steps), **watch)
    with torch.no_grad():
        predicted = model(x[-HELD_OUT:])
    truth = torch.log(scaled[-HELD_OUT:].clamp_min(0) + 1).unsqueeze(1)
    mon.test_rmse = round(float(((predicted - truth) ** 2).mean().sqrt()), 3) \
        if fixed else round(float(((predicted - target[-HELD_OUT:]) ** 2).mean().sqrt()), 3)
    mon.test_nan_predictions = int(torch.isnan(predicted).sum())
    mon.target_spread = round(float(truth.std()), 3)
    return mon
