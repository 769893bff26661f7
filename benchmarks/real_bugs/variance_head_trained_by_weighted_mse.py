"""A regression network with a learned standard-deviation head (``softplus`` of a raw output)
trained with a "weighted MSE", ``((y - mean) / std)^2``, instead of the Gaussian negative
log-likelihood: nothing in that loss charges for a large ``std`` (the ``log std`` term is
missing), so the loss falls fastest by inflating the predicted spread. The std grows without
bound, the loss drifts towards zero, and the mean's own error term is divided by an ever
larger number: the mean head learns slower and the predicted intervals cover everything.

Reported: "[BUG] Incompatible objective: --output_std with wmse or wmae creates degenerate
learned-variance training" - https://github.com/mllam/neural-lam/issues/363 (with
``--output_std`` the model predicts its std through a softplus and the weighted losses
divide the error by it, so the reporter shows the loss can be lowered by making the std
larger instead of improving the forecast, with nothing stopping the std from growing). Here
an MLP reads the 8x8 digit images and predicts the digit's value (standardised) with a mean
and a std head.
Fix: train the std head with the Gaussian NLL, ``0.5 * ((y - mean) / std)^2 + log std``.

Measured (400 steps, Adam 1e-3, 1000 training rows, seed 0): on 797 test rows the bug's
mean predicted std is 18.5 (the twin's 0.27), its 1-std intervals cover all of the targets
(the twin's 0.60; a calibrated Gaussian covers 0.68), and its mean's squared error is 0.627
against 0.176 (the targets' variance is about 1).
"""
import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._calibration_digits import split
from benchmarks.real_bugs._common import batches

TITLE = ("[BUG] Incompatible objective: --output_std with wmse or wmae creates degenerate "
         "learned-variance training")
LINK = "https://github.com/mllam/neural-lam/issues/363"
# the name batch 69 gave a variance head that no likelihood trains
EXPECTED = ("VARIANCE_HEAD_WITHOUT_LIKELIHOOD",)
STEPS = 400
LR = 1e-3


class MeanAndStd(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU())
        self.mean = nn.Linear(64, 1)
        self.std = nn.Linear(64, 1)

    def forward(self, x):
        h = self.body(x)
        return self.mean(h)[:, 0], F.softplus(self.std(h)[:, 0]) + 1e-4


def standardised_value(y, reference):
    value, ref = y.float(), reference.float()
    return (value - ref.mean()) / ref.std()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    (x_train, d_train), (x_val, d_val), (x_test, d_test) = split(seed=0)
    x_train, d_train = torch.cat([x_train, x_val]), torch.cat([d_train, d_val])   # 1000 rows
    y_train, y_test = standardised_value(d_train, d_train), standardised_value(d_test, d_train)
    model = MeanAndStd()
    optimizer = torch.optim.Adam(model.parameters(), lr=LR)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x_train, y_train, steps):
            optimizer.zero_grad()
            mean, std = model(xb)
            z = (yb - mean) / std
            if fixed:
                loss = (0.5 * z ** 2 + std.log()).mean()      # Gaussian NLL
            else:
                loss = (z ** 2).mean()        # BUG: weighted MSE, nothing charges for std
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        mean, std = model(x_test)
    mon.extra = {"test_mean_std": round(float(std.mean()), 3),
                 "test_coverage_1std": round(float(((y_test - mean).abs() < std)
                                                   .float().mean()), 3),
                 "test_mse": round(float(F.mse_loss(mean, y_test)), 3)}
    return mon
