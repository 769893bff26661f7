"""PGD adversarial training whose optimizer.zero_grad() sits before the attack: each of the
attack's steps calls loss.backward() to get the input's gradient, and every one of those
backward passes also adds the weights' gradient to their .grad. The training backward then
adds its own on top, and the optimizer steps on the sum: seven attack gradients and one
training gradient, about eight times the intended step, pointing mostly where the
adversarial loss falls. Nothing raises.

Reported: "gradient accumulated!" - https://github.com/P2333/Bag-of-Tricks-for-AT/issues/8
("Does the model's gradient accumulate when adversarial examples are computed?"; the
maintainer: the weights' gradient does accumulate during the attack's backward passes, and
is harmless there only because it is zeroed "before backward through training loss and
taking opt step"; "it is a good practice to zero out the weight's gradient in each step").
Here the zero_grad() is where many loops put it, at the top of the step, before the attack:
an MLP (64-128-10) is PGD-trained (eps 0.1, 7 steps of 0.025) with SGD (lr 0.1, momentum
0.9) for 300 steps.
Fix: zero the gradients after the attack, right before the training backward (or take the
input's gradient with torch.autograd.grad, which leaves .grad alone).

Measured (300 steps, 1400 training / 397 held-out digits): held-out clean accuracy 0.763
against 0.975 for the fixed twin, PGD accuracy 0.675 against 0.856 (``run``'s
mon.accuracy).
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "gradient accumulated!"
LINK = "https://github.com/P2333/Bag-of-Tricks-for-AT/issues/8"
EXPECTED = ("GRADIENTS_ACCUMULATING",)
STEPS = 300
EPSILON, ALPHA, ATTACK_STEPS = 0.1, 0.025, 7


def pgd(model, x, y):
    delta = torch.zeros_like(x).uniform_(-EPSILON, EPSILON)
    for _ in range(ATTACK_STEPS):
        delta.requires_grad_(True)
        loss = nn.functional.cross_entropy(model((x + delta).clamp(0, 1)), y)
        loss.backward()                    # also adds the weights' gradient to their .grad
        delta = (delta + ALPHA * delta.grad.sign()).clamp(-EPSILON, EPSILON).detach()
    return (x + delta).clamp(0, 1)


def accuracy(model, x, y, attack=False):
    if attack:
        x = pgd(model, x, y)
        model.zero_grad()
    with torch.no_grad():
        return round(float((model(x).argmax(1) == y).float().mean()), 3)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    order = torch.randperm(len(y), generator=torch.Generator().manual_seed(0))
    x, y = x[order], y[order]
    (x_train, y_train), (x_test, y_test) = (x[:1400], y[:1400]), (x[1400:], y[1400:])
    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x_train, y_train, steps):
            optimizer.zero_grad()          # BUG: before the attack's backward passes
            x_adv = pgd(model, xb, yb)
            if fixed:
                optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(x_adv), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.accuracy = {"clean": accuracy(model, x_test, y_test),
                    "pgd": accuracy(model, x_test, y_test, attack=True)}
    return mon
