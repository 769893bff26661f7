"""A regression network that predicts curve parameters with a batch-norm layer placed after
its output layer: every batch's predictions are forced to the same mean and spread (beta and
gamma) while training, so a prediction depends on which other curves share its batch, and
in eval mode the layer rescales the outputs with running statistics that lag behind a last
layer still moving.

Reported: "Applying Batch Normalization on the output layer in a regression problem" -
https://discuss.tensorflow.org/t/applying-batch-normalization-on-the-output-layer-in-a-regression-problem/14056
(predicting parameters A, B, C, D from X and Y data points: "applying a batch
normalization layer on to the output layer makes the model predict much (much! (factor
5x)) worse than without"). Here 2,000 noisy curves y = a + b x + c sin(d pi x) sampled at
20 points, a dense network with batch norm in its hidden layers (as in the post) and a
BatchNorm1d(4) after Linear(64, 4), Adam lr 1e-3, batches of 16, the parameters in their
own units. Fix: no normalisation after the output layer.

Measured (held-out mean squared error over the four parameters, eval mode, bug vs fixed):
seed 0: 25.7 vs 1.48; seeds + 1000: 25.4 vs 1.68.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._bnd import curve_parameters

TITLE = "Applying Batch Normalization on the output layer in a regression problem"
LINK = ("https://discuss.tensorflow.org/t/applying-batch-normalization-on-the-output-layer-"
        "in-a-regression-problem/14056")
EXPECTED = ("OUTPUT_NORMALISED_BEFORE_SQUASH",)
STEPS = 300
BATCH = 16


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = curve_parameters(2000)
    x_test, y_test = curve_parameters(500)
    layers = [nn.Linear(40, 64), nn.BatchNorm1d(64), nn.ReLU(),
              nn.Linear(64, 64), nn.BatchNorm1d(64), nn.ReLU(), nn.Linear(64, 4)]
    if not fixed:
        layers.append(nn.BatchNorm1d(4))     # BUG: batch norm after the output layer
    model = nn.Sequential(*layers)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.MSELoss()
    with nd.watch(model, optimizer, **watch) as mon:
        step = 0
        while step < steps:
            order = torch.randperm(len(x))
            for start in range(0, len(x) - BATCH + 1, BATCH):
                index = order[start:start + BATCH]
                optimizer.zero_grad()
                loss = loss_fn(model(x[index]), y[index])
                loss.backward()
                optimizer.step()
                mon.step(loss)
                step += 1
                if step == steps:
                    break
        model.eval()
        with torch.no_grad():
            mon.held_out_mse = round(loss_fn(model(x_test), y_test).item(), 4)
    return mon
