"""A regression whose targets span eight orders of magnitude (y = x**4 for x up to 100),
fed in raw units: the mean squared error is about 1e15, and the network, with weights
of order one, cannot reach outputs of 1e8 in any reasonable number of steps.

Reported: "Why do I fail to predict y=x**4 with keras? (y=x**3 works)" -
https://stackoverflow.com/questions/52800582 (the answer: "your input and output
variables have too large values and hence are not compatible with the (initial) weights
of the network ... the outputs are in the range of [-1e8, 1e8]"). Here in torch: x in
[-100, 100], y = x**4, an MLP with Adam.
Fix: standardise x and y (and undo the scaling of y for predictions).
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, train_watched

TITLE = "Why do I fail to predict y=x**4 with keras? (y=x**3 works)"
LINK = "https://stackoverflow.com/questions/52800582"
EXPECTED = ("UNNORMALIZED_INPUTS",)   # the targets' scale (the other half) has no rule yet
STEPS = 150


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x = torch.linspace(-100, 100, 2000)[:, None]
    y = x[:, 0] ** 4
    if fixed:
        x = (x - x.mean()) / x.std()
        y = (y - y.mean()) / y.std()
    model = nn.Sequential(nn.Linear(1, 64), nn.Tanh(), nn.Linear(64, 64), nn.Tanh(),
                          nn.Linear(64, 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

    def loss_fn(output, target):
        return nn.functional.mse_loss(output.squeeze(1), target)
    return train_watched(model, optimizer, loss_fn, batches(x, y, steps), **watch)
