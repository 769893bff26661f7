"""A second loss is backpropagated after ``optimizer.step()``: its gradients land in ``.grad``
once the step is already taken, and the ``zero_grad()`` at the top of the next iteration wipes
them. The second objective never moves a weight; the head only it trains stays as initialised.

Reported: "Adversarial loss not counted by model's optimizer" -
https://github.com/MyeongJin-Kim/Learning-Texture-Invariant-Representation/issues/11
("optimizer.step() is called before the adversarial loss's gradients are calculated ...
I believe that implies the loss_adv is not used by the optimizer to update the model's
params"). Here a shared digits trunk with two heads: the digit class (cross-entropy, stepped)
and whether the digit is 5 or more (BCE, computed and backpropagated after the step).
Measured on 500 held-out digits (seed 0, 200 steps): the second head scores 49.6% (a coin)
with its loss backpropagated after the step, 90.8% when both are backpropagated before it;
the class head is 90.4% either way.
watch names it BACKWARD_AFTER_OPTIMIZER_STEP (the head's parameters have no gradient when the
optimizer steps and hold one when the step closes); as it came it was named only by its
symptom, PARAMS_NOT_UPDATING (the first guess, GRADIENTS_DISCARDED, is a zero_grad() between
micro-batches: the gradients here are not cleared before the step, they arrive after it).
Fix: sum the losses (or call every backward) before ``optimizer.step()``.
"""
import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "Adversarial loss not counted by model's optimizer"
LINK = "https://github.com/MyeongJin-Kim/Learning-Texture-Invariant-Representation/issues/11"
EXPECTED = ("BACKWARD_AFTER_OPTIMIZER_STEP",)
STEPS = 200
HELD_OUT = 500


class TwoHeads(nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(64, 64), nn.ReLU())
        self.digit = nn.Linear(64, 10)
        self.high = nn.Linear(64, 1)

    def forward(self, x):
        h = self.trunk(x)
        return self.digit(h), self.high(h).squeeze(1)


def train(fixed=False, steps=STEPS, **watch):
    """The monitor and the trained model."""
    torch.manual_seed(0)
    x, y = classification()
    x, y = x[:-HELD_OUT], y[:-HELD_OUT]
    model = TwoHeads()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss_digit = F.cross_entropy(model(xb)[0], yb)
            loss_digit.backward()
            if not fixed:
                optimizer.step()         # BUG: stepped before the second loss's backward
            loss_high = F.binary_cross_entropy_with_logits(model(xb)[1], (yb >= 5).float())
            loss_high.backward()         # (unfixed: zero_grad() wipes it before any step)
            if fixed:
                optimizer.step()
            mon.step(loss_digit + loss_high)
    return mon, model


def run(fixed=False, steps=STEPS, **watch):
    return train(fixed, steps, **watch)[0]


def held_out_accuracy(fixed):
    _, model = train(fixed)
    x, y = classification()
    with torch.no_grad():
        digit, high = model(x[-HELD_OUT:])
    y = y[-HELD_OUT:]
    return ((digit.argmax(1) == y).float().mean().item(),
            ((high > 0) == (y >= 5)).float().mean().item())


if __name__ == "__main__":
    for fixed in (False, True):
        print("fixed" if fixed else "bug", held_out_accuracy(fixed))
