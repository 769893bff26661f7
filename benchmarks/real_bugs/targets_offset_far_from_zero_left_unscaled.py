"""A small tanh regressor is trained on targets that all sit near -2700 (a spread of a few
tens around a large offset) while its inputs are scaled to [-1, 1]: the network starts
out predicting about 0, some 2700 away from every target, so the first squared errors
are in the millions and their gradients throw the hidden layers deep into tanh's flat
tails. Saturated, the hidden units barely move any more; the output layer only reaches
the targets' average through its bias and weights, and the model predicts the mean for
every input.

Reported: "Scaling target variables" - https://discuss.pytorch.org/t/scaling-target-variables/41046
(inputs in [-1, 1], "targets are all values around -2700", xavier init and tanh in 2
hidden layers of 5 nodes: "it steadies off at predictions being just the mean of all the
targets"; scaled to [0, 1] it trains. Answer: "your network outputs should start at the
average of the targets ... If your initialized outputs is too far away from the target,
then loss function is big. As a result the gradient is too big. After several updates,
your weights move to far and fall into saturation area of the tanh() activation and stop
learning" - scale the targets or initialise the output near their mean). Here the
digit's value times 3 minus 2700 as the target of a 64-5-5-1 tanh MLP on the digits'
pixels (scaled to [-1, 1]), SGD at 0.03 with momentum 0.9.

Measured (400 steps, 297 held-out digits, errors in the targets' units): the bug's
held-out RMSE 8.54 (the held-out targets' own spread is 8.55: it predicts the mean), the fixed
twin's 5.6 (trained on the targets min-max scaled to [0, 1], predictions scaled back).
Fix: scale the targets (min-max or standardise with the training rows' statistics) and
undo the scaling on the predictions.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "Scaling target variables"
LINK = "https://discuss.pytorch.org/t/scaling-target-variables/41046"
EXPECTED = ("TARGETS_UNSCALED",)
STEPS = 400
HELD_OUT = 297


def build():
    model = nn.Sequential(nn.Linear(64, 5), nn.Tanh(), nn.Linear(5, 5), nn.Tanh(),
                          nn.Linear(5, 1))
    for layer in model:
        if isinstance(layer, nn.Linear):
            nn.init.xavier_uniform_(layer.weight)
            nn.init.zeros_(layer.bias)
    return model


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, digits = classification()
    x = x * 2 - 1                                     # inputs in [-1, 1]
    y = (digits.float() * 3 - 2700).unsqueeze(1)      # targets around -2700
    train_y = y[:-HELD_OUT]
    low, high = train_y.min(), train_y.max()
    if fixed:
        target = (train_y - low) / (high - low)       # min-max scaled to [0, 1]
    else:
        target = train_y                              # BUG: raw targets, around -2700
    model = build()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.03, momentum=0.9)
    mon = train_watched(model, optimizer, nn.MSELoss(),
                        batches(x[:-HELD_OUT], target, steps), **watch)
    with torch.no_grad():
        predicted = model(x[-HELD_OUT:])
        if fixed:
            predicted = predicted * (high - low) + low
    mon.test_rmse = round(float(((predicted - y[-HELD_OUT:]) ** 2).mean().sqrt()), 2)
    mon.target_spread = round(float(y[-HELD_OUT:].std()), 2)
    return mon
