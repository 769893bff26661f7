"""A multilayer perceptron predicting the sine of a sum with a logistic sigmoid on its OUTPUT
unit as well as on its hidden units: the output lives in (0, 1), about half the targets are
negative, so every negative sine is predicted as (nearly) 0 while the positive ones are fit.

Reported: "Multi-layer neural network won't predict negative values" -
https://stackoverflow.com/questions/5105718/multi-layer-neural-network-wont-predict-negative-values/5105974
(inputs: four entries from {-1, 0, 1} and a bias of 1, target sin(sum); 5 inputs, 6
sigmoid hidden units, a sigmoid output; "the network will never predict a negative value ... It
predicts all positive or zero outputs perfectly"; the answer: the logistic function
"generates values between [0,1]", use the hyperbolic tangent, "which goes from [-1,+1]").
Here the same 5-6-1 network and task, mini-batches of 16, plain SGD at the report's rate 0.1
raised to 0.5 so the small net converges in 300 steps. Fix: a tanh output unit.

Measured harm (held-out R^2): seed 0: 0.282 vs 0.772; seeds + 1000: 0.252 vs 0.69.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._multi_output import r2, sine_of_sums, split

TITLE = "Multi-layer neural network won't predict negative values"
LINK = ("https://stackoverflow.com/questions/5105718/"
        "multi-layer-neural-network-wont-predict-negative-values/5105974")
EXPECTED = ("TARGETS_OUTSIDE_OUTPUT_RANGE",)
STEPS = 300


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = sine_of_sums()
    x_train, y_train, x_test, y_test = split(x, y)
    squash = nn.Tanh() if fixed else nn.Sigmoid()    # BUG when not fixed: output in (0, 1)
    model = nn.Sequential(nn.Linear(5, 6), nn.Sigmoid(), nn.Linear(6, 1), squash)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    loss_fn = nn.MSELoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(x_train), steps, batch_size=16):
            loss = loss_fn(model(x_train[index]).squeeze(1), y_train[index])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        mon.held_out_r2 = r2(model(x_test).squeeze(1), y_test)
    return mon
