"""The loop clears gradients with ``model.zero_grad()`` while the optimizer also holds
parameters that live outside the model - here the class centres of a centre loss. Their
gradients are never cleared: each step adds to the sum of every earlier one, so the centres
are pushed by all past batches at once, overshoot, and drag the features after them.

Reported: "self.optimizer.zero_grad() or self.model.zero_grad() ?" -
https://github.com/freud14/poutyne/issues/12 (the training step called
``self.model.zero_grad()``; "should It be self.optimizer.zero_grad()"; the maintainer
changed it). The two differ exactly when the optimizer holds parameters the model does not,
as a loss function with its own parameters does. Here a digits MLP with a 16-D feature
layer, cross-entropy plus a centre loss (weight 0.1) whose centres SGD (momentum 0.9) trains.
Measured on 500 held-out digits (seed 0, 200 steps): 14.0% accuracy (near chance: the
centres' summed gradients blow them and the features away) with ``model.zero_grad()``, 90.8% with
``optimizer.zero_grad()``.
watch names it OPTIMIZER_PARAMS_NEVER_ZEROED (the centres' .grad holds more than the step's
backward delivered); as it came only the symptoms were named (LOSS_DIVERGING,
LOSS_OSCILLATING): the step records compare the model's parameters only.
Fix: ``optimizer.zero_grad()``, which clears every parameter the optimizer steps.
"""
import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "self.optimizer.zero_grad() or self.model.zero_grad() ?"
LINK = "https://github.com/freud14/poutyne/issues/12"
EXPECTED = ("GRADIENTS_ACCUMULATING", "OPTIMIZER_PARAMS_NEVER_ZEROED")
STEPS = 200
HELD_OUT = 500
FEATURES = 16
CENTRE_WEIGHT = 0.1


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, FEATURES),
                                      nn.ReLU())
        self.classify = nn.Linear(FEATURES, 10)

    def forward(self, x):
        f = self.features(x)
        return self.classify(f), f


class CentreLoss(nn.Module):
    """Cross-entropy plus the squared distance of each feature to its class's centre."""

    def __init__(self):
        super().__init__()
        self.centres = nn.Parameter(torch.randn(10, FEATURES))

    def forward(self, logits, features, y):
        pull = ((features - self.centres[y]) ** 2).sum(1).mean()
        return F.cross_entropy(logits, y) + CENTRE_WEIGHT * pull


def train(fixed=False, steps=STEPS, **watch):
    """The monitor and the trained model."""
    torch.manual_seed(0)
    x, y = classification()
    x, y = x[:-HELD_OUT], y[:-HELD_OUT]
    model, criterion = Net(), CentreLoss()
    optimizer = torch.optim.SGD(list(model.parameters()) + list(criterion.parameters()),
                                lr=0.05, momentum=0.9)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            if fixed:
                optimizer.zero_grad()
            else:
                model.zero_grad()        # BUG: the centres' gradients are never cleared
            logits, features = model(xb)
            loss = criterion(logits, features, yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon, model


def run(fixed=False, steps=STEPS, **watch):
    return train(fixed, steps, **watch)[0]


def held_out_accuracy(fixed):
    _, model = train(fixed)
    x, y = classification()
    with torch.no_grad():
        return (model(x[-HELD_OUT:])[0].argmax(1) == y[-HELD_OUT:]).float().mean().item()


if __name__ == "__main__":
    for fixed in (False, True):
        print("fixed" if fixed else "bug", held_out_accuracy(fixed))
