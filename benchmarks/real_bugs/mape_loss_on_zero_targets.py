"""Mean absolute percentage error used as the training loss on targets that are often
exactly zero (a day without sales, a road without traffic). Keras' MAPE clips the
divisor at 1e-7, so each zero-target row weighs ten million times a row whose target is
1: the optimizer spends every step on those rows, pulls the predictions towards zero and
leaves the rest of the data unfitted, while nothing turns NaN.

Reported: "mape loss if the lable is 0" - https://github.com/keras-team/keras/issues/2908
("in my project the mean absolute percentage error is used, but when the lable is 0, I
think the error is not important and i dont count it"; the reporter's MAPE divides by
``K.clip(K.abs(y_true), K.epsilon(), np.inf)``). Here an MLP predicts daily demand from 6
standardised features; 27% of the days have no demand at all, the rest between 1 and 20.
Fix: what the reporter asked for, leave the zero-target rows out of the percentage error.

Measured (300 steps, the ~4,400 held-out days with demand): the bug's mean absolute error
is 10.0 (it predicts about 0 everywhere) against 0.36 for the fixed twin (median demand
10.0).
"""
import torch
from torch import nn

TITLE = "mape loss if the lable is 0"
LINK = "https://github.com/keras-team/keras/issues/2908"
EXPECTED = ("LOSS_DIVIDED_BY_NEAR_ZERO",)
STEPS = 300
FEATURES = 6
BATCH_SIZE = 64
EPSILON = 1e-7      # [convention] Keras' K.epsilon(), the clip of MAPE's divisor


def days(rows, seed):
    """Features and demand: 0 on ~30% of the days, otherwise 1..20 driven by the
    features."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(rows, FEATURES, generator=g)
    level = 10 + 4 * torch.tanh(x[:, 0]) + 3 * x[:, 1] * x[:, 2].sigmoid() + 2 * x[:, 3]
    level = level.clamp(1, 20) + 0.3 * torch.randn(rows, generator=g)
    closed = (x[:, 4] + 0.5 * x[:, 5] > 0.7).float()       # no demand on those days
    return x, (level.clamp(min=1) * (1 - closed))


def regressor():
    return nn.Sequential(nn.Linear(FEATURES, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(),
                         nn.Linear(64, 1), nn.Flatten(0))


def keras_mape(predicted, y):
    """Keras' mean_absolute_percentage_error, written in torch."""
    return 100 * ((y - predicted).abs() / y.abs().clamp(min=EPSILON)).mean()


def mape_without_zero_targets(predicted, y):
    kept = y != 0
    return 100 * ((y[kept] - predicted[kept]).abs() / y[kept].abs()).mean()


def run(fixed=False, steps=STEPS, **watch):
    import nndebug as nd
    torch.manual_seed(0)
    x, y = days(6000, seed=0)
    model = regressor()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    # BUG (fixed=False): the zero-demand days are divided by 1e-7
    loss_of = mape_without_zero_targets if fixed else keras_mape
    g = torch.Generator().manual_seed(1)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            rows = torch.randint(0, len(x), (BATCH_SIZE,), generator=g)
            optimizer.zero_grad()
            loss = loss_of(model(x[rows]), y[rows])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        x_test, y_test = days(6000, seed=1)
        demand = y_test > 0
        mon.mae_on_demand_days = round(float(
            (model(x_test[demand]) - y_test[demand]).abs().mean()), 2)
    return mon
