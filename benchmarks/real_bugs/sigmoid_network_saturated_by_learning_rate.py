"""A sigmoid network trained with squared error at a learning rate of 10: the first steps
drive every unit into the flat ends of its sigmoid, the gradients vanish, the squared error
settles and the classifier is wrong on about nine digits in ten.

Reported: "poor performance in dropout example" -
https://github.com/rasmusbergpalm/DeepLearnToolbox/issues/12 ("The default learning rate
seems to be too high in the example ... nn.alpha = 1e1 ... Mean squared error is 0.5 ...
89.68% error"; with nn.alpha = 1 the same network trains). Here the report's network
shape in torch on the digits: sigmoid hidden layers, sigmoid outputs, squared error on
one-hot targets, plain SGD at 10.
Fix: a learning rate of 1.

Measured (600 steps, 297 held-out digits, ``mon.held_out_accuracy``): the bug's accuracy
is 0.09 with its squared error at 0.50, the report's own number; the fixed twin's is 0.84.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "poor performance in dropout example"
LINK = "https://github.com/rasmusbergpalm/DeepLearnToolbox/issues/12"
EXPECTED = ("LR_TOO_HIGH", "SATURATED_ACTIVATIONS")
STEPS = 600
HELD_OUT = 297


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    x_train, y_train, x_test, y_test = x[:-HELD_OUT], y[:-HELD_OUT], x[-HELD_OUT:], y[-HELD_OUT:]
    model = nn.Sequential(nn.Linear(64, 100), nn.Sigmoid(), nn.Linear(100, 10), nn.Sigmoid())
    learning_rate = 1.0 if fixed else 10.0     # BUG (fixed=False): the example's alpha of 10
    optimizer = torch.optim.SGD(model.parameters(), lr=learning_rate)

    def loss_fn(outputs, labels):
        """The toolbox's squared error: half the sum over outputs, averaged over rows."""
        return 0.5 * ((outputs - nn.functional.one_hot(labels, 10).float()) ** 2).sum(1).mean()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x_train, y_train, steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        mon.held_out_accuracy = round(float((model(x_test).argmax(1) == y_test).float().mean()), 3)
    return mon
