"""A first regression network fitted to house sale prices in raw dollars (about 50,000 to
500,000) with the mean squared error and plain SGD at lr 0.1: the first errors are ~1e5,
their squares ~1e10, the first gradients move the weights by thousands, and within a few
steps the loss is inf and then NaN - the network never gets to learn the prices.

Reported: "train/valid loss = NAN when loss = \"mean_squared_error\" due to exploding
values" - https://github.com/rstudio-conf-2020/dl-keras-tf/issues/9 (an Ames housing
mini-project compiled with optimizer_sgd(lr = 0.1) and loss = "mean_squared_error" prints
loss: nan - val_loss: nan from the first epoch; "This is probably related to the range of
the predicted value (sales price) which reaches ~ 755000. When the error gets squared, the
sum explodes!"). Here a synthetic housing table (five standardised features, 800 training
and 200 held-out houses), an MLP, batches of 16, SGD at lr 0.1. Fix: fit the standardised
price (the training rows' mean and std) and map predictions back to dollars.

Measured harm (held-out R^2 of the predicted prices): seed 0: nan vs 0.88; seeds + 1000:
nan vs 0.85.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._beginner_regression import batches, houses, split, standardise
from benchmarks.real_bugs._nan_losses import r2

TITLE = ('train/valid loss = NAN when loss = "mean_squared_error" due to exploding values')
LINK = "https://github.com/rstudio-conf-2020/dl-keras-tf/issues/9"
EXPECTED = ("TARGETS_UNSCALED",)
STEPS = 300


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, price = houses()
    x_train, y_train, x_test, y_test = split(x, price)
    x_train, x_test = standardise(x_train, x_test)
    mean, std = y_train.mean(), y_train.std()
    # BUG when not fixed: the network is fitted to the raw prices in dollars
    target = (y_train - mean) / std if fixed else y_train
    model = nn.Sequential(nn.Linear(5, 32), nn.ReLU(), nn.Linear(32, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    loss_fn = nn.MSELoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for index in batches(len(x_train), steps, batch_size=16):
            optimizer.zero_grad()
            loss = loss_fn(model(x_train[index]).squeeze(1), target[index])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        prediction = model(x_test).squeeze(1)
        if fixed:
            prediction = prediction * std + mean
    mon.held_out_r2 = r2(prediction, y_test)
    return mon
