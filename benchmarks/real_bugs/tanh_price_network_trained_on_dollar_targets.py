"""A tanh MLP with a linear output regressing house prices left in dollars: the huge errors
give huge gradients that push the tanh units into saturation, after which every house gets
about the same price - the mean.

Reported: "Neural networks regression: scaling the outputs or using a linear layer?" -
https://stackoverflow.com/questions/37931772 ("when I use this solution [a linear output
after tanh layers] I usually get a prediction which is the mean of the batch prediction";
the answer: work with normalised target values, so that the weights stay small and learn
quickly). Here the synthetic California-style table with standardised inputs, a 5-32-32-1
tanh network and SGD, the price in dollars. Fix: standardise the target with the training
rows' mean and std and map the predictions back.

Measured harm (held-out R^2, dollars): seed 0: -0.015 vs 0.843; seeds + 1000: 0.235 vs 0.845.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._beginner_regression import batches, houses, r2, split, standardise

TITLE = "Neural networks regression: scaling the outputs or using a linear layer?"
LINK = "https://stackoverflow.com/questions/37931772"
EXPECTED = ("TARGETS_UNSCALED",)
STEPS = 300


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, price = houses()
    x_train, y_train, x_test, y_test = split(x, price)
    x_train, x_test = standardise(x_train, x_test)
    mean, std = y_train.mean(), y_train.std()
    targets = (y_train - mean) / std if fixed else y_train   # BUG when not fixed: dollars
    model = nn.Sequential(nn.Linear(5, 32), nn.Tanh(), nn.Linear(32, 32), nn.Tanh(),
                          nn.Linear(32, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    loss_fn = nn.MSELoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for index in batches(len(x_train), steps):
            optimizer.zero_grad()
            loss = loss_fn(model(x_train[index]).squeeze(1), targets[index])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        prediction = model(x_test).squeeze(1)
        if fixed:
            prediction = prediction * std + mean
        mon.held_out_r2 = r2(prediction, y_test)
    return mon
