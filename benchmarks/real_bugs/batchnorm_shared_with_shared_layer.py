"""A layer shared across two steps of the network on purpose, whose batch normalisation
was shared with it by accident: one BatchNorm1d normalises two sites whose activations
differ, so in training each call normalises with its own batch's statistics, while the
running mean and variance that evaluation uses are a blend of the two sites that fits
neither. The training loss looks healthy; the evaluated model is far worse.

Reported: "Bugfix/shared layers" - https://github.com/dreamquark-ai/tabnet/pull/76 ("Since
deepcopy was removed in order to share the weights between layers, we noticed that the
batch normalizations had also been shared, which should not be the case. Here, we make
sure that batchnorms are independent and that layer weights are shared."). Here a digits
MLP whose hidden Linear is applied at two steps, as TabNet's shared feature transformer
is. Fix: one BatchNorm1d per step, the Linear still shared.

Measured (200 steps, 360 held-out digits, evaluated in eval mode): accuracy 0.36 with the
shared batch norm against 0.93 for the fixed twin (a first variant with two separate
Linear layers and one batch norm: 0.69, 0.59 and 0.43 against 0.93, 0.93 and 0.94 over
seeds 0-2).
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification

TITLE = "Bugfix/shared layers"
LINK = "https://github.com/dreamquark-ai/tabnet/pull/76"
EXPECTED = ("NORM_STATISTICS_SHARED_ACROSS_SITES",)
STEPS = 200
HIDDEN = 32
HELD_OUT = 360


class Step(nn.Module):
    """One step of the net: the shared Linear (the same object in every step, on purpose)
    and a batch norm; ``block`` is what the steps share."""
    def __init__(self, block, norm=None):
        super().__init__()
        self.block = block
        self.norm = norm

    def forward(self, h):
        h = self.block(h)
        return torch.relu(self.norm(h) if self.norm is not None else h)


class SharedStepNet(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.stem = nn.Sequential(nn.Linear(64, HIDDEN), nn.ReLU())
        if fixed:
            shared = nn.Linear(HIDDEN, HIDDEN)
            self.steps = nn.ModuleList(Step(shared, nn.BatchNorm1d(HIDDEN)) for _ in range(2))
        else:
            # BUG: the block shared by the steps holds the batch norm too
            shared = nn.Sequential(nn.Linear(HIDDEN, HIDDEN), nn.BatchNorm1d(HIDDEN))
            self.steps = nn.ModuleList(Step(shared) for _ in range(2))
        self.head = nn.Linear(HIDDEN, 10)

    def forward(self, x):
        h = self.stem(x)
        for step in self.steps:
            h = step(h)
        return self.head(h)


def run(fixed=False, steps=STEPS, **watch):
    import nndebug as nd
    torch.manual_seed(0)
    x, y = classification()
    model = SharedStepNet(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x[:-HELD_OUT], y[:-HELD_OUT], steps):
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        mon.accuracy = float((model(x[-HELD_OUT:]).argmax(1) == y[-HELD_OUT:]).float().mean())
    return mon
