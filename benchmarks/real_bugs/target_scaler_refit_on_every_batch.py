"""A regressor trained batch by batch whose StandardScaler is fitted again on every batch:
each batch's targets are standardised with that batch's own mean and spread before the
loss, and predictions are mapped back with the scaler as the last batch left it. When a
batch is one coherent chunk of the data - one day, one site, one snapshot, as batches
streamed from storage usually are - its own mean is exactly the part of the target that
differs between chunks, so the per-batch fit removes it: the network is trained to predict
only each chunk's deviations from its own mean, in units of its own spread, and at
prediction time everything is shifted and stretched by whichever chunk came last. The
per-batch loss is small and falls steadily (the standardised targets are easy), so the
run looks healthy.

Reported: "Use fv3fit scalers in sklearn training" - https://github.com/ai2cm/fv3net/pull/628
(a model trained on batches of climate-model data, "the sklearn StandardScaler refits on
each batch"; the fix fits the scaler once and then uses the same transform and inverse
transform for all data).
Here 60 synthetic "days" of 64 samples each (48 for training, 12 held out): 6 features
whose day-level offsets move the target, plus a within-day signal, y = a smooth function
of them plus noise; each training batch is one day. An MLP (6-64-64-1), Adam 0.001, 20
passes over the days. Bug: each batch's targets standardised with their own mean and
spread, predictions inverted with the last batch's; fix: one scaler fitted on all the
training targets before the loop, used for every batch and for the predictions.

Measured (held-out R^2 of the predictions in the target's own units): seed 0: 0.49 with
the bug, 0.98 fixed; seeds shifted by 1000: -1.33 against 0.99.
The fixed twin draws LOSS_OSCILLATING at seed 0 (34 jumps in 960 steps) though it learns
well: each batch is one day, so the per-batch loss moves with the day drawn, not with
overshooting updates (at a 3x smaller rate it jumps more often, 95 times in 1920 steps).
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd

TITLE = "Use fv3fit scalers in sklearn training"
LINK = "https://github.com/ai2cm/fv3net/pull/628"
EXPECTED = ("TARGETS_RESCALED_PER_BATCH",)
DAYS, TRAIN_DAYS, PER_DAY, FEATURES, PASSES = 60, 48, 64, 6, 20
STEPS = TRAIN_DAYS * PASSES


def days(rng):
    """x (DAYS, PER_DAY, FEATURES), y (DAYS, PER_DAY): a day-level offset in every feature
    plus within-day variation; the target reads both."""
    offset = rng.normal(scale=1.0, size=(DAYS, 1, FEATURES))
    x = offset + rng.normal(scale=0.6, size=(DAYS, PER_DAY, FEATURES))
    w = rng.normal(size=FEATURES)
    y = x @ w + 0.5 * np.sin(x[..., 0] * 2) + 0.3 * x[..., 1] * x[..., 2]
    y = 5.0 + 2.0 * y + rng.normal(scale=0.3, size=y.shape)
    return torch.tensor(x, dtype=torch.float32), torch.tensor(y, dtype=torch.float32)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x, y = days(rng)
    x_train, y_train = x[:TRAIN_DAYS], y[:TRAIN_DAYS]
    x_held, y_held = x[TRAIN_DAYS:], y[TRAIN_DAYS:]
    model = nn.Sequential(nn.Linear(FEATURES, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(),
                          nn.Linear(64, 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=0.001)
    mean, std = y_train.mean(), y_train.std()       # the fix: one scaler, fitted once
    with nd.watch(model, optimizer, **watch) as mon:
        for step in range(steps):
            if step % TRAIN_DAYS == 0:
                order = torch.from_numpy(rng.permutation(TRAIN_DAYS))
            day = order[step % TRAIN_DAYS]
            xb, yb = x_train[day], y_train[day]
            if not fixed:            # BUG: the scaler fitted again on this batch
                mean, std = yb.mean(), yb.std()
            optimizer.zero_grad()
            loss = nn.functional.mse_loss(model(xb).squeeze(-1), (yb - mean) / std)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():        # inverse transform with the scaler as training left it
        predicted = model(x_held.reshape(-1, FEATURES)).squeeze(-1) * std + mean
    truth = y_held.reshape(-1)
    mon.held_out_r2 = float(1 - ((predicted - truth) ** 2).mean() / truth.var())
    return mon
