"""The per-variable normalisation statistics in the config are wrong for the sea-level
pressure channel: its mean is 1619.3 while the field is stored in pascals (94000-105000), so
after (x - mean) / std the pressure channel sits near +99 with a spread of 1 while the other
channels are standardised. Training and inference use the same wrong numbers, so nothing
crashes and the masks look plausible, but the detector learns the pressure signal (the one
that marks a cyclone's core) from an input dominated by a constant offset.

Reported: "config means/std incorrect for training data" -
https://github.com/andregraubner/ClimateNet/issues/9 ("the mean for PSL is 1619.3 which is odd
as its calculated from a field that is in hPA (94000-105000)"; the reporters "will
recalculate the means/std, fix the config file and retrain"). Here a periodic CNN segments
"cyclone" cells (low pressure where the column is moist) from TMQ, U850 and PSL on a 12 x 24
grid, per-pixel BCE. Fix: the pressure channel's mean from the training fields (~101000 Pa).

Measured (held-out per-pixel IoU of the cyclone class, 200 Adam steps): 0.015 vs 0.766;
seeds + 1000: 0.000 vs 0.747.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs import _wx

TITLE = "config means/std incorrect for training data"
LINK = "https://github.com/andregraubner/ClimateNet/issues/9"
EXPECTED = ("UNNORMALIZED_INPUTS", "INPUT_CHANNELS_ON_DIFFERENT_SCALES")
STEPS = 200
HELDOUT = []
PHYS_MEAN = torch.tensor([20.0, 5.0, 101000.0]).view(1, 3, 1, 1)   # TMQ kg/m2, U850 m/s, PSL Pa
PHYS_STD = torch.tensor([12.0, 8.0, 1000.0]).view(1, 3, 1, 1)
CONFIG_MEAN = torch.tensor([20.0, 5.0, 1619.3]).view(1, 3, 1, 1)    # PSL mean as in the config


def data(n):
    z = _wx.states(n, 3)
    mask = ((z[:, 2] < -0.7) & (z[:, 0] > -0.2)).float().unsqueeze(1)   # low pressure, moist
    return z * PHYS_STD + PHYS_MEAN, mask


def iou(logits, mask):
    pred = logits > 0
    truth = mask > 0.5
    return float((pred & truth).sum() / (pred | truth).sum().clamp(min=1))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train_x, train_y = data(2048)
    test_x, test_y = data(256)
    mean = PHYS_MEAN if fixed else CONFIG_MEAN          # BUG when not fixed: PSL mean 1619.3
    train_x = (train_x - mean) / PHYS_STD
    test_x = (test_x - mean) / PHYS_STD
    model = _wx.cnn(3, 1)
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    loss_fn = nn.BCEWithLogitsLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            pick = torch.randint(0, len(train_x), (32,))
            optimizer.zero_grad()
            loss = loss_fn(model(train_x[pick]), train_y[pick])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        HELDOUT.append(iou(model(test_x), test_y))
    return mon
