"""Two stacked one-unit linear layers fit to y = x ** 2 + 3 over x = 0..99 with plain SGD:
the inputs are standardised but the targets are left in raw units (up to about 9,800), so
the squared error's gradient is thousands of times what the default rate can take, the
product of the two weights overshoots further on every step and the loss diverges to inf,
then NaN.

Reported: "Why is deep neural net with linear activation diverges?" -
https://wiki.hoelee.com/content/stats.stackexchange.com_en_all_2022-05/questions/418955/why-is-deep-neural-net-with-linear-activation-diverges
(a copy of stats.stackexchange question 418955: Keras, Dense(1) twice without activation,
SGD at its default rate, MSE, x_normed = (x - x.mean()) / x.std(), y = x ** 2 + 3, the
loss diverging; the asker's update: "It seems like this particular behavior is caused by
not scaled target variable. This matches my experiments, which showed that the learning
occurs only with very small learning rate."). Here the same toy in torch: 80 of the 100
points for training, mini-batches of 32, SGD at Keras's default 0.01. Fix: standardise the
target with the training rows' mean and std (and undo it on the predictions).

Measured harm (held-out R^2 in raw units): seed 0: NaN (the loss diverged) vs 0.932;
seeds + 1000: NaN vs 0.962.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._multi_output import r2, split

TITLE = "Why is deep neural net with linear activation diverges?"
LINK = ("https://wiki.hoelee.com/content/stats.stackexchange.com_en_all_2022-05/questions/"
        "418955/why-is-deep-neural-net-with-linear-activation-diverges")
EXPECTED = ("TARGETS_UNSCALED",)
STEPS = 300


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x = torch.arange(100, dtype=torch.float32)[:, None]
    y = x[:, 0] ** 2 + 3
    x_normed = (x - x.mean()) / x.std()
    x_train, y_train, x_test, y_test = split(x_normed, y, held_out=0.2)
    mean, std = (y_train.mean(), y_train.std()) if fixed else (0.0, 1.0)  # BUG: raw targets
    model = nn.Sequential(nn.Linear(1, 1), nn.Linear(1, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    loss_fn = nn.MSELoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(x_train), steps):
            loss = loss_fn(model(x_train[index]).squeeze(1), (y_train[index] - mean) / std)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        mon.held_out_r2 = r2(model(x_test).squeeze(1) * std + mean, y_test)
    return mon
