"""A two-view classifier trained through its evaluation code's prediction path: each view's
log-probabilities are turned into probabilities with ``.detach().numpy()``, averaged over
the views in NumPy (the script's pandas group-by), and the average is wrapped back into a
tensor with ``torch.tensor(predictions, requires_grad=True)`` so that ``loss.backward()``
stops complaining. That tensor is a new leaf: the loss's gradient ends on it and never
reaches a weight, so the optimizer steps with no gradient and the network stays at its
random start. The run raises nothing; the loss just wanders around its first value.

Reported: "How do we manipulate the tensors with required_grad=True?" -
https://github.com/nyukat/breast_cancer_classifier/issues/56 (the averaged view
predictions "works only if tensor is detached as NumPy array", then
``predictions = torch.tensor(predictions, requires_grad=True)``; the maintainer: "it won't
work as you desired to backpropagate through the entire model"). Here the digits as a
binary task (0-4 against 5-9, last 400 rows held out), each digit seen in two views (the
image and its mirror image, as the model's left and right views) by a shared MLP body with
one log-softmax head per view; binary cross-entropy on the view-averaged probability of
class 1, Adam 1e-3, batches of 64, 300 steps. (The report also wraps its labels with
requires_grad=True; that part is left out: it changes nothing here.)
Fix: average the views' probabilities with torch ops, ``output.exp()[..., 1].mean(1)``,
and take the loss of that.

Measured (held-out accuracy, view-averaged probability > 0.5): 0.575 with the bug,
0.895 fixed; seeds + 1000: 0.558 vs 0.893.
"""
import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, binary

TITLE = "How do we manipulate the tensors with required_grad=True?"
LINK = "https://github.com/nyukat/breast_cancer_classifier/issues/56"
EXPECTED = ("NO_GRADIENT", "LOSS_TERM_WITHOUT_GRADIENT")
STEPS = 300
HELD_OUT = 400


def two_views(x):
    """(N, 2, 64): each 8x8 digit and its mirror image."""
    image = x.view(-1, 8, 8)
    return torch.stack([image, image.flip(-1)], dim=1).reshape(-1, 2, 64)


class TwoViewModel(nn.Module):
    """A shared body and one head per view; log-probabilities of the 2 classes per view."""

    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(64, 64), nn.ReLU())
        self.heads = nn.ModuleList([nn.Linear(64, 2), nn.Linear(64, 2)])

    def forward(self, views):
        return torch.stack([F.log_softmax(head(self.body(views[:, i])), dim=-1)
                            for i, head in enumerate(self.heads)], dim=1)


def averaged_with_numpy(output):
    """The evaluation path: each view's P(class 1) in NumPy, averaged over the views."""
    per_view = np.exp(output[:, :, 1].detach().numpy())
    return per_view.mean(axis=1)


@torch.no_grad()
def accuracy(model, x, y):
    model.eval()
    correct = ((model(two_views(x)).exp()[..., 1].mean(1) > 0.5).float() == y).float().mean()
    model.train()
    return round(correct.item(), 4)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = binary()
    x, y, x_test, y_test = x[:-HELD_OUT], y[:-HELD_OUT], x[-HELD_OUT:], y[-HELD_OUT:]
    model = TwoViewModel()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps, seed=0):
            optimizer.zero_grad()
            output = model(two_views(xb))
            if fixed:
                predictions = output.exp()[..., 1].mean(1)
            else:                              # BUG: a new leaf, no path back to the model
                predictions = torch.tensor(averaged_with_numpy(output), requires_grad=True)
            loss = F.binary_cross_entropy(predictions, yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(model, x_test, y_test)
    return mon
