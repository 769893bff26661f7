"""A first classifier written with the functional dropout, F.dropout(h, p=0.5), in its
forward: F.dropout's ``training`` argument defaults to True, so model.eval() does not turn
it off and every evaluation (and prediction) still drops half the hidden units at random.

Reported: "Behavior of F.dropout in eval mode" -
https://github.com/pytorch/pytorch/issues/26338 (a small Net whose forward calls
F.dropout(x) keeps zeroing values after net.eval(); the maintainers: the functional form
needs training=self.training, only the nn.Dropout module follows eval()). Here an MLP
(64 -> 128 -> 128 -> 10) on the 8x8 digits with F.dropout(p=0.5) after both hidden
layers, Adam, batches of 64, evaluated on held-out digits in eval mode every 50 steps.
Fix: F.dropout(h, p=0.5, training=self.training).

Measured (held-out accuracy on 500 digits, model in eval mode, after the run): seed 0:
0.910 for the bug against 0.968 for the fixed twin; seeds + 1000: 0.904 against 0.946.
"""
import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._regularisation_beginner import accuracy, digits

TITLE = "Behavior of F.dropout in eval mode"
LINK = "https://github.com/pytorch/pytorch/issues/26338"
EXPECTED = ("DROPOUT_IGNORES_EVAL",)
STEPS = 300


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2, self.out = nn.Linear(64, 128), nn.Linear(128, 128), nn.Linear(128, 10)

    def forward(self, x):                      # BUG: training defaults to True
        h = F.dropout(F.relu(self.fc1(x)), p=0.5)
        h = F.dropout(F.relu(self.fc2(h)), p=0.5)
        return self.out(h)


class FixedNet(Net):
    """The twin: the same layers, the dropout told the module's mode (the fixed script has
    only this forward, so it is a class of its own, not a branch of the buggy one)."""
    def forward(self, x):
        h = F.dropout(F.relu(self.fc1(x)), p=0.5, training=self.training)
        h = F.dropout(F.relu(self.fc2(h)), p=0.5, training=self.training)
        return self.out(h)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, xh, yh = digits()
    model = FixedNet() if fixed else Net()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for step, (xb, yb) in enumerate(batches(x, y, steps), 1):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            val_loss = None
            if step % 50 == 0:
                model.eval()
                with torch.no_grad():
                    val_loss = loss_fn(model(xh), yh).item()
                model.train()
            mon.step(loss, val_loss=val_loss)
    mon.held_out_accuracy = accuracy(model, xh, yh)
    return mon
