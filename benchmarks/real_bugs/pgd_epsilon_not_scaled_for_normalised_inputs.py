"""PGD adversarial training on standardised inputs with the perturbation budget given in
pixel units: the images are normalised ((x - mean) / std) before the attack, and epsilon
(meant for pixels in [0, 1]) is added to the normalised values unchanged. In pixel units the
attack's radius is then epsilon x std, a fraction of what was meant, and the model is
trained against a much weaker adversary; nothing raises, the loss falls, and robust accuracy
measured at the intended radius comes out far lower than the method should give.

Reported: "epsilon in CIFAR10" - https://github.com/locuslab/convex_adversarial/issues/31
(the inputs are normalised with std 0.225 in the loader, "but epsilon is just added to the
normalized input"; the maintainer: "Correct, the epsilon needs to be normalized. I was
manually doing this in my experiments by passing in the normalized epsilon directly to
the script, but I forgot the default parameter is not normalized").
Here an MLP (64-128-10) reads digits standardised with one mean and std over all pixels
(std 0.37), PGD-trained (eps 0.15 meant in pixel units, 7 steps) for 300 steps.
Fix: epsilon and the step size divided by the std (or attack in pixel space and normalise
inside the model).

Measured (300 steps, 1400 training / 397 held-out digits): PGD accuracy at the intended
pixel radius 0.418 against 0.597 for the fixed twin (clean 0.955 against 0.950): trained at
0.37 of the intended radius (``run``'s mon.accuracy).
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "epsilon in CIFAR10"
LINK = "https://github.com/locuslab/convex_adversarial/issues/31"
EXPECTED = ("ADVERSARIAL_EPSILON_SCALE",)
STEPS = 300
EPSILON, ATTACK_STEPS = 0.15, 7     # EPSILON in pixel units ([0, 1] images)


def pgd(model, x, y, eps):
    """L-inf PGD of radius ``eps`` in the units of ``x``."""
    delta = torch.zeros_like(x).uniform_(-eps, eps)
    for _ in range(ATTACK_STEPS):
        delta.requires_grad_(True)
        loss = nn.functional.cross_entropy(model(x + delta), y)
        grad, = torch.autograd.grad(loss, delta)
        delta = (delta + eps / 4 * grad.sign()).clamp(-eps, eps).detach()
    return x + delta


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    order = torch.randperm(len(y), generator=torch.Generator().manual_seed(0))
    x, y = x[order], y[order]
    mean, std = x[:1400].mean(), x[:1400].std()
    x = (x - mean) / std                                      # standardised inputs
    (x_train, y_train), (x_test, y_test) = (x[:1400], y[:1400]), (x[1400:], y[1400:])
    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    eps = EPSILON / std if fixed else EPSILON                 # BUG: pixel units on z-scores
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x_train, y_train, steps):
            x_adv = pgd(model, xb, yb, eps)
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(x_adv), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        clean = round(float((model(x_test).argmax(1) == y_test).float().mean()), 3)
    x_adv = pgd(model, x_test, y_test, EPSILON / std)         # the intended radius
    with torch.no_grad():
        robust = round(float((model(x_adv).argmax(1) == y_test).float().mean()), 3)
    mon.accuracy = {"clean": clean, "pgd_at_intended_eps": robust, "std": round(float(std), 3)}
    return mon
