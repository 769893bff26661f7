"""An attack object that remembers the model's train/eval flag when it is built and puts that
flag back after every attack: built while the model was in eval mode (right after a first
evaluation), it switches the model back to eval mode after each adversarial batch, although
the loop called model.train() at the top of the step. Every training forward then runs in
eval mode: dropout never drops, batch norm normalises with its running statistics, which
are never updated (they stay at their initial 0 and 1). Nothing raises; the loss falls.

Reported: "Be careful with training mode" -
https://github.com/Harry24k/adversarial-attacks-pytorch/issues/21 (torchattacks' Attack
"sets the training attribute based on the given model in initializing Attack object rather
than the current model": the model's mode changed after the attack was built is
overwritten by the one saved at construction; fixed by pull request #22, which reads the
mode when the attack runs).
Here an MLP with batch norm and dropout (64-256-256-10) is trained with FGSM examples
(eps 0.1 on [0, 1] pixels, half clean and half adversarial batches) for 400 steps; the
attack object is built after a first evaluation in eval mode.
Fix: read the model's mode when the attack runs (or build the attack after model.train()).

Measured (400 steps, 1400 training / 397 held-out digits): the bug runs every one of its
400 training forwards in eval mode (0 of 400 optimizer steps in train mode, against 400 of
400 for the fixed twin); held-out clean accuracy 0.975 for both, FGSM accuracy 0.809 against
0.859 for the twin (see ``run``'s mon.accuracy).
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "Be careful with training mode"
LINK = "https://github.com/Harry24k/adversarial-attacks-pytorch/issues/21"
EXPECTED = ("TRAINING_IN_EVAL_MODE",)
STEPS = 400
EPSILON = 0.1


class FGSM:
    """An FGSM attack that runs the model in eval mode and then restores its mode."""

    def __init__(self, model, eps, fixed):
        self.model, self.eps, self.fixed = model, eps, fixed
        self.training = model.training          # BUG: the mode saved once, at construction

    def __call__(self, x, y):
        given_mode = self.model.training if self.fixed else self.training
        self.model.eval()
        x = x.clone().requires_grad_(True)
        loss = nn.functional.cross_entropy(self.model(x), y)
        grad, = torch.autograd.grad(loss, x)
        self.model.train(given_mode)
        return (x + self.eps * grad.sign()).clamp(0, 1).detach()


def accuracy(model, x, y, attack=None):
    model.eval()
    if attack is not None:
        x = attack(x, y)
    with torch.no_grad():
        return round(float((model(x).argmax(1) == y).float().mean()), 3)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    order = torch.randperm(len(y), generator=torch.Generator().manual_seed(0))
    x, y = x[order], y[order]
    (x_train, y_train), (x_test, y_test) = (x[:1400], y[:1400]), (x[1400:], y[1400:])
    model = nn.Sequential(nn.Linear(64, 256), nn.BatchNorm1d(256), nn.ReLU(), nn.Dropout(0.5),
                          nn.Linear(256, 256), nn.BatchNorm1d(256), nn.ReLU(),
                          nn.Dropout(0.5), nn.Linear(256, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    model.eval()
    start_accuracy = accuracy(model, x_test, y_test)      # a first evaluation
    attack = FGSM(model, EPSILON, fixed)
    modes = []
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x_train, y_train, steps):
            model.train()
            x_adv = attack(xb, yb)
            modes.append(model.training)
            optimizer.zero_grad()
            loss = 0.5 * (nn.functional.cross_entropy(model(xb), yb)
                          + nn.functional.cross_entropy(model(x_adv), yb))
            loss.backward()
            optimizer.step()
            mon.step(loss)
    check = FGSM(model, EPSILON, fixed=True)
    mon.accuracy = {"start": start_accuracy, "clean": accuracy(model, x_test, y_test),
                    "fgsm": accuracy(model, x_test, y_test, check),
                    "steps_in_train_mode": sum(modes)}
    return mon
