"""Uncertainty-weighted multi-task loss (Kendall et al. 2018: each task's loss divided by
2 sigma^2, plus log sigma) written with sigma itself as the trainable variable:
``loss_i / (2 * w_i**2) + log(w_i)``. Nothing keeps ``w_i`` positive. As a task's loss falls,
its optimum sigma = sqrt(loss) shrinks toward zero; on an easy task the optimiser's steps
carry ``w_i`` across zero and ``log(w_i)`` of a negative number is NaN. The gradient stays
finite (d log w / dw = 1 / w is computed, not the log), so training goes on with a NaN loss
that no longer says anything, while a tiny ``w_i`` near the crossing multiplies that task's
gradient by 1 / w_i^2 and shakes the shared trunk.

Reported: "weight uncertainty issue" - https://github.com/QunBB/DeepLearning/issues/1 ("If
uncertainty_weight[i] is negative then tf.log(uncertainty_weight[i]) will be nan"; the author:
"Yes, you are right. We can initialize the tensor variable log(uncertainty_weight) rather than
uncertainty_weight to avoid the log computation", and the code now trains s_i = log sigma_i^2:
``loss_i / (2 * exp(s_i)) + s_i / 2``). Here a digits network with two heads - the digit, and
an easy auxiliary 'is it a zero' - whose two cross-entropies are weighed that way, with Adam.
Fix: train the log-variance, as the repository's fixed code does.

Measured (300 steps, 297 held-out digits): the bug's loss is NaN from step 79 on (the
auxiliary task's sigma has crossed zero) and its held-out digit accuracy ends at 0.84; the
fixed twin's 0.89.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "weight uncertainty issue"
LINK = "https://github.com/QunBB/DeepLearning/issues/1"
EXPECTED = ("LOG_OF_UNBOUNDED_OUTPUT",)
STEPS = 300
HELD_OUT = 297


class TwoTasks(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.fixed = fixed
        self.trunk = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU())
        self.digit_head = nn.Linear(64, 10)
        self.zero_head = nn.Linear(64, 2)
        if fixed:
            self.log_variance = nn.Parameter(torch.zeros(2))     # s_i = log sigma_i^2
        else:
            self.uncertainty = nn.Parameter(torch.ones(2))       # sigma_i itself

    def forward(self, x):
        h = self.trunk(x)
        return self.digit_head(h), self.zero_head(h)

    def weigh(self, losses):
        losses = torch.stack(losses)
        if self.fixed:
            return (losses / (2 * torch.exp(self.log_variance)) + self.log_variance / 2).sum()
        w = self.uncertainty
        return (losses / (2 * w ** 2) + torch.log(w)).sum()     # BUG: log of an unbounded w


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = TwoTasks(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x[:-HELD_OUT], y[:-HELD_OUT], steps):
            optimizer.zero_grad()
            digit_logits, zero_logits = model(xb)
            loss = model.weigh([F.cross_entropy(digit_logits, yb),
                                F.cross_entropy(zero_logits, (yb == 0).long())])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        predicted = model(x[-HELD_OUT:])[0].argmax(1)
    mon.test_accuracy = round(float((predicted == y[-HELD_OUT:]).float().mean()), 3)
    return mon
