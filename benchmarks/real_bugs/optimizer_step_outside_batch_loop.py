"""optimizer.step() indented one level too far out: it runs once per epoch, after the batch
loop, while zero_grad() and backward() run for every batch. Every batch's gradient but the
last is computed and thrown away; the model takes one step per epoch.

Reported: "Fixed possible indentation error in the training loop in utils/utils.py." -
https://github.com/XinyiYS/Gradient-Driven-Rewards-to-Guarantee-Fairness-in-Collaborative-Machine-Learning/pull/3
("the optimizer has to be called for every batch, in order to use the information of the
whole training dataset"; the maintainer: "I think you are correct"). Here a digits MLP with
25-batch epochs. Fix: step inside the batch loop.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, mlp

TITLE = "Fixed possible indentation error in the training loop in utils/utils.py."
LINK = ("https://github.com/XinyiYS/Gradient-Driven-Rewards-to-Guarantee-Fairness-in-"
        "Collaborative-Machine-Learning/pull/3")
EXPECTED = ("GRADIENTS_DISCARDED", "PARAMS_NOT_UPDATING")
STEPS = 150          # batches (each one a forward, a backward and mon.step)
EPOCH = 25           # batches per epoch


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    data = batches(x, y, steps)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps // EPOCH):
            for _, (xb, yb) in zip(range(EPOCH), data):
                optimizer.zero_grad()
                loss = loss_fn(model(xb), yb)
                loss.backward()
                if fixed:
                    optimizer.step()
                mon.step(loss)
            if not fixed:
                optimizer.step()             # BUG: once per epoch, after the batch loop
    return mon
