"""Celsius-to-Fahrenheit linear regression on raw temperatures from -500 to 500: the rate
that keeps the slope stable is so small that the bias (which should reach 32) crawls, so
every prediction stays about 32 degrees off.

Reported: "Help with simple (celcius to f) linear regression using PyTorch (gradient
descent + autograd)" - https://forums.fast.ai/t/help-with-simple-celcius-to-f-linear-regression-using-pytorch-gradient-descent-autograd/18783
("my bias term seems to be converging extremely slowly. If I increase the learning rate the
gradients will blow up"; over 5000 epochs the bias went from -0.59 to -0.28; the answer:
"Your Xs are in range -500 to 500 ... you should normalize your data"). Here 2000 noisy
(C, F) pairs, a Linear(1, 1) and mini-batch SGD at a rate just inside the stable range for
the raw inputs. Fix: standardise the input with the training rows' mean and std (and use a
normal rate).

Measured harm (held-out mean absolute error, degrees F): seed 0: 29.9 vs 0.24; seeds + 1000:
31.3 vs 0.26.
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._beginner_regression import batches, standardise

TITLE = ("Help with simple (celcius to f) linear regression using PyTorch "
         "(gradient descent + autograd)")
LINK = ("https://forums.fast.ai/t/help-with-simple-celcius-to-f-linear-regression-using-"
        "pytorch-gradient-descent-autograd/18783")
EXPECTED = ("UNNORMALIZED_INPUTS",)
STEPS = 300


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    c = rng.uniform(-500, 500, size=(2000, 1)).astype(np.float32)
    f = (1.8 * c + 32 + rng.normal(0, 0.3, size=c.shape)).astype(np.float32)
    x, y = torch.from_numpy(c), torch.from_numpy(f)
    x_train, y_train, x_test, y_test = x[:1600], y[:1600], x[1600:], y[1600:]
    if fixed:
        x_train, x_test = standardise(x_train, x_test)
        lr = 0.1
    else:
        lr = 1e-5                           # BUG: raw inputs; a larger rate blows up
    model = nn.Linear(1, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    loss_fn = nn.MSELoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for index in batches(len(x_train), steps, batch_size=64):
            optimizer.zero_grad()
            loss = loss_fn(model(x_train[index]), y_train[index])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        mon.held_out_mae = round((model(x_test) - y_test).abs().mean().item(), 2)
    return mon
