"""A tutorial notebook's second model, ``model_1`` (an ``nn.Linear`` version of the first
section's hand-written linear regression), trained with an optimizer built over
``model_0.parameters()`` - the model of the earlier section, still alive in the notebook.
The loss is computed from ``model_1`` and its gradients land on ``model_1``, but the
optimizer steps ``model_0``, whose gradients are None, so nothing moves: the printed loss
is the same at every epoch and ``model_1`` predicts with its initial weights.

Reported: "loss remains the same" - https://github.com/mrdbourke/pytorch-deep-learning/issues/399
(the course's linear-regression section rebuilt with ``nn.Linear`` as ``model_1``, and
``torch.optim.SGD(params=model_0.parameters(), lr=0.01)`` for it; the loss stays the same
over the epochs). Here the course's data - y = 0.7 x + 0.3 on 50 points of [0, 1), the
first 40 for training - an earlier cell that builds and trains ``model_0`` (two
``nn.Parameter`` scalars, its own SGD), then ``model_1``: L1 loss, SGD 0.01, full batch,
1,000 epochs (as in the report). Fix: ``params=model_1.parameters()``.

Measured (held-out mean absolute error on the last 10 points; the targets span 0.86 to
0.99): 0.59 with the bug, 0.0003 fixed; seeds + 1000: 2.38 vs 0.004.
"""
import torch
from torch import nn

import nndebug as nd

TITLE = "loss remains the same"
LINK = "https://github.com/mrdbourke/pytorch-deep-learning/issues/399"
EXPECTED = ("OPTIMIZER_MISSING_PARAMS", "PARAMS_NOT_UPDATING")
STEPS = 1000
WEIGHT, BIAS = 0.7, 0.3


class LinearRegressionModel(nn.Module):
    """The course's first model: a weight and a bias as parameters."""
    def __init__(self):
        super().__init__()
        self.weights = nn.Parameter(torch.randn(1))
        self.bias = nn.Parameter(torch.randn(1))

    def forward(self, x):
        return self.weights * x + self.bias


class LinearRegressionModelV2(nn.Module):
    """The second one, the same map as an nn.Linear layer."""
    def __init__(self):
        super().__init__()
        self.linear_layer = nn.Linear(in_features=1, out_features=1)

    def forward(self, x):
        return self.linear_layer(x)


def data():
    x = torch.arange(0, 1, 0.02).unsqueeze(1)
    y = WEIGHT * x + BIAS
    split = int(0.8 * len(x))
    return x[:split], y[:split], x[split:], y[split:]


def run(fixed=False, steps=STEPS, **watch):
    x_train, y_train, x_test, y_test = data()
    loss_fn = nn.L1Loss()

    # an earlier section of the notebook: model_0, trained with its own optimizer
    torch.manual_seed(42)
    model_0 = LinearRegressionModel()
    optimizer_0 = torch.optim.SGD(params=model_0.parameters(), lr=0.01)
    for _ in range(100):
        optimizer_0.zero_grad()
        loss_fn(model_0(x_train), y_train).backward()
        optimizer_0.step()

    # the later section: model_1, and its optimizer (BUG: over model_0's parameters)
    torch.manual_seed(42)
    model_1 = LinearRegressionModelV2()
    trained = model_1 if fixed else model_0
    optimizer = torch.optim.SGD(params=trained.parameters(), lr=0.01)
    with nd.watch(model_1, optimizer, **watch) as mon:
        for _ in range(steps):
            model_1.train()
            loss = loss_fn(model_1(x_train), y_train)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model_1.eval()
    with torch.no_grad():
        mon.held_out_mae = loss_fn(model_1(x_test), y_test).item()
    return mon
