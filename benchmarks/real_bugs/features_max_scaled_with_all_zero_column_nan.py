"""Feature vectors scaled to [0, 1] by dividing every column by its maximum, when some
columns are 0 in every row: their maximum is 0, 0 / 0 is NaN, and those NaN inputs make the
autoencoder's first loss - and, through the gradients, every weight - NaN: "loss = nan -
mse = nan" from the first epoch, and nothing is learned.

Reported: "Nan value of lose and MSE" - https://github.com/evandowning/deepreflect/issues/11
("lose = nan - mse = nan while training the model and not improving the values"; the
answer: "This is due to the presence of a feature with a maximum value of 0, which leads to
improper normalization that sets 0 as the denominator"; the reporter: "Remove those
feature which are missing while normalisation"). Here the 8x8 digits as raw pixel counts
(0-16; the corner pixels are 0 in every image) are the feature vectors of a 64-32-16-32-64
autoencoder trained with Adam on 1,500 of them. Fix: leave the all-zero columns at 0
(divide by 1 where the maximum is 0).

Measured harm (held-out reconstruction MSE on 297 digits, features in [0, 1]): seed 0: nan
vs 0.054; seeds + 1000: nan vs 0.060.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._nan_losses import digit_counts

TITLE = "Nan value of lose and MSE"
LINK = "https://github.com/evandowning/deepreflect/issues/11"
EXPECTED = ("NAN_IN_INPUTS",)
STEPS = 300
TRAIN = 1500


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, _ = digit_counts()
    x_train, x_test = x[:TRAIN], x[TRAIN:]
    top = x_train.max(dim=0).values
    if fixed:
        top = torch.where(top > 0, top, torch.ones_like(top))
    # BUG when not fixed: columns that are 0 in every row are divided by their maximum, 0
    x_train, x_test = x_train / top, x_test / top
    model = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 16), nn.ReLU(),
                          nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 64), nn.Sigmoid())
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.MSELoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, _ in batches(x_train, x_train, steps, batch_size=32):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), xb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        # scored against the fixed scaling's targets (the bug's NaN columns are the bug)
        top_fixed = x[:TRAIN].max(dim=0).values.clamp(min=1)
        mon.held_out_mse = round(((model(x_test) - x[TRAIN:] / top_fixed) ** 2).mean().item(), 4)
    return mon
