"""A ReLU on the last layer's output, right before log-softmax: negative logits are cut to
0, so a class can be pushed down only to where every other class sits, and output units
whose pre-activation goes negative for every sample stop learning.

Reported: "Remove rectifier before softmax" - https://github.com/pytorch/examples/pull/117
(the MNIST example computed `log_softmax(relu(fc2(x)))`: "softmax(relu(h_last)) is a very
unusual thing to do. Removed the rectifier for convergence"). Here a digits MLP ending in
that ReLU, trained with NLLLoss on its log-softmax. Fix: no activation on the logits.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "Remove rectifier before softmax"
LINK = "https://github.com/pytorch/examples/pull/117"
EXPECTED = ("DEAD_RELU",)
STEPS = 150


class Net(nn.Module):
    def __init__(self, relu_on_logits):
        super().__init__()
        self.relu_on_logits = relu_on_logits
        self.fc1, self.fc2 = nn.Linear(64, 50), nn.Linear(50, 10)

    def forward(self, x):
        x = F.relu(self.fc1(x))
        x = self.fc2(x)
        if self.relu_on_logits:
            x = F.relu(x)                    # BUG: a rectifier on the logits
        return F.log_softmax(x, dim=1)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = Net(relu_on_logits=not fixed)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.5)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = F.nll_loss(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
