"""A block applied several times in one forward (weights tied across the unrolled
iterations, as intended) whose single BatchNorm layer is reused at every iteration, where
one norm per iteration was needed. In training mode each call normalises with its own
batch's statistics, so the loss falls as it should; but the one pair of running_mean /
running_var is updated by every iteration in turn and ends up a blend of their different
distributions, and model.eval() normalises every iteration with that blend - the
evaluated network is not the one that was trained.

Reported: "How do make batchnorm to maintain multiple pairs of running_mean and
running_var?" - https://github.com/pytorch/pytorch/issues/1738 (a module used twice in
one forward: "net.eval() performs much worse than net.train()"; the maintainers: use two
separate BatchNorm layers). Here a digits classifier: Linear(64, 64) stem and ReLU, then
three iterations of one shared Linear(64, 64) -> BatchNorm1d(64) -> ReLU block with a
residual connection, then Linear(64, 10); Adam (1e-3), batches of 64, 300 steps,
held-out loss in eval mode every 50 steps.
Fix: one BatchNorm1d per iteration (an nn.ModuleList of three), the Linear still shared.

Measured (held-out accuracy on 500 digits, eval mode): 0.398 with the bug, 0.982 fixed;
seeds + 1000: 0.408 vs 0.978.
"""
import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._reg169 import accuracy, split

TITLE = "How do make batchnorm to maintain multiple pairs of running_mean and running_var?"
LINK = "https://github.com/pytorch/pytorch/issues/1738"
EXPECTED = ("NORM_STATISTICS_SHARED_ACROSS_SITES",)
STEPS = 300
ITERATIONS = 3


class UnrolledNet(nn.Module):
    def __init__(self, fixed=False, width=64, classes=10):
        super().__init__()
        self.stem = nn.Linear(64, width)
        self.shared = nn.Linear(width, width)            # tied across iterations (meant)
        if fixed:
            self.norms = nn.ModuleList(nn.BatchNorm1d(width) for _ in range(ITERATIONS))
        else:                                            # BUG: one norm for every iteration
            self.norm = nn.BatchNorm1d(width)
        self.head = nn.Linear(width, classes)

    def norm_at(self, i):
        return self.norms[i] if hasattr(self, "norms") else self.norm

    def forward(self, x):
        h = F.relu(self.stem(x))
        for i in range(ITERATIONS):
            h = h + F.relu(self.norm_at(i)(self.shared(h)))
        return self.head(h)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, xh, yh = split()
    model = UnrolledNet(fixed)
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
