"""A two-output model whose forward passes the shared features through the SAME output layer
twice (x1 = dense2(x); x2 = dense2(x)): the two "outputs" are one value under two names, so
the sum of the two losses pulls it to the average of the two targets and neither is learned.

Reported: "Multi-output model" - https://discuss.pytorch.org/t/multi-output-model/49447 (a
model meant to predict two targets, loss1 + loss2; the answer: "you pass it through the
same network layers (with identical weights) to produce x1 and x2, which are identical ...
It makes sense that when one loss value decreases, the other increases ... the network will
only be able to predict one at a time"; give each target its own layer, dense2a and
dense2b). The answer's code trains class labels under NLL; here the beginner multi-output
regression the same wiring gives: two unrelated standardised targets of an 8-feature
table, a shared hidden layer, MSE per output, Adam. Fix: one output layer per target.

Measured harm (held-out R^2, mean of the two targets): seed 0: 0.374 vs 0.817;
seeds + 1000: 0.375 vs 0.854.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._multi_output import r2, split, two_targets

TITLE = "Multi-output model"
LINK = "https://discuss.pytorch.org/t/multi-output-model/49447"
EXPECTED = ("MODULE_REPEATED_IN_CONTAINER",)
STEPS = 300


class TwoOutputs(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.fixed = fixed
        self.dense1 = nn.Linear(8, 32)
        self.dense2 = nn.Linear(32, 1)
        if fixed:
            self.dense2b = nn.Linear(32, 1)          # the fix: the second target's own head

    def forward(self, x):
        x = torch.relu(self.dense1(x))
        x1 = self.dense2(x)
        x2 = self.dense2b(x) if self.fixed else self.dense2(x)   # BUG: the same layer again
        return x1, x2


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = two_targets()
    x_train, y_train, x_test, y_test = split(x, y)
    model = TwoOutputs(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)
    loss_fn = nn.MSELoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(x_train), steps):
            out1, out2 = model(x_train[index])
            target = y_train[index]
            loss = loss_fn(out1, target[:, :1]) + loss_fn(out2, target[:, 1:])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        mon.held_out_r2 = r2(torch.cat(model(x_test), dim=1), y_test)
    return mon
