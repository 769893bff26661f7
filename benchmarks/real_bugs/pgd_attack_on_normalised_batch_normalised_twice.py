"""PGD adversarial training whose data loader already standardises the images, while the
attack treats its input as [0, 1] pixels: it clamps the standardised batch to [0, 1] (every
pixel below the mean becomes 0, every one far above it 1), perturbs that within eps, and
standardises the result a second time before the model sees it. The adversarial half of
each training batch is a clipped, doubly standardised image the model never meets at test
time, not an eps-perturbation of the digit; the clean half keeps the clean accuracy up, so
the run looks healthy, and the robustness the attack was there for is partly lost.

Reported: "Wrong normalization" -
https://github.com/aamir-mustafa/pcl-adversarial-defense/issues/4 (in the PGD adversarial
training script, the batches come from a loader with transforms.Normalize while the attack
clamps to [0, 1] and normalises its output again: "it should apply denormalization"; the
author: "Thanks for pointing it out. We have made some changes in the file").
Here the "loader" standardises the digits pixel by pixel (the training pixels' mean and
standard deviation + 0.1, as a StandardScaler would, kept off zero for the blank corner
pixels); an MLP (64-128-128-10) trains with Adam for 400 steps on batches of
64 clean + 64 PGD digits (eps 0.1, 10 steps of 0.025, the model in eval mode for the
attack, as in the report).
Fix: un-standardise the batch before the attack (attack in pixel space, standardise once).

Measured (400 steps; 397 held-out digits; PGD-20 at eps 0.1 in pixel space from
``_adv.pgd_reference`` through the standardising model; ``run``'s mon.accuracy): seed 0,
held-out PGD accuracy 0.705 for the bug against 0.811 for the fixed twin (clean 0.975 for
both); seeds shifted by 1000, PGD 0.720 against 0.798 (clean 0.975 against 0.977). With a
single global mean and deviation (0.305, 0.376) the clamp bites less and the gap was 3-5
points.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._adv import accuracy, mlp, pgd_reference, split
from benchmarks.real_bugs._common import batches

TITLE = "Wrong normalization"
LINK = "https://github.com/aamir-mustafa/pcl-adversarial-defense/issues/4"
EXPECTED = ("INPUT_NORMALIZED_TWICE",)
STEPS = 400
EPSILON, ALPHA, ATTACK_STEPS = 0.1, 0.025, 10
_PIXELS = split()[0][0]
MEAN, STD = _PIXELS.mean(0), _PIXELS.std(0) + 0.1    # per pixel, as a standardising loader


def normalise(x):
    return (x - MEAN) / STD


def pgd_pixels(model, pixels, y):
    """PGD in pixel space: ``pixels`` in [0, 1], the model reads standardised inputs."""
    adv = pixels.clone()
    for _ in range(ATTACK_STEPS):
        adv.requires_grad_(True)
        loss = nn.functional.cross_entropy(model(normalise(adv)), y)
        grad, = torch.autograd.grad(loss, adv)
        adv = adv + ALPHA * grad.sign()
        adv = torch.min(torch.max(adv, pixels - EPSILON), pixels + EPSILON).clamp(0, 1)
        adv = adv.detach()
    return adv


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    (x_train, y_train), (x_test, y_test) = split()
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(normalise(x_train), y_train, steps):   # a standardising loader
            model.eval()
            if fixed:
                adv = pgd_pixels(model, xb * STD + MEAN, yb)
            else:
                adv = pgd_pixels(model, xb.clamp(0, 1), yb)   # BUG: standardised taken as pixels
            model.train()
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(torch.cat([xb, normalise(adv)])),
                                               torch.cat([yb, yb]))
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    pixel_model = nn.Sequential(Standardise(), model)
    mon.accuracy = {"clean": accuracy(pixel_model, x_test, y_test),
                    "pgd": accuracy(pixel_model, pgd_reference(pixel_model, x_test, y_test,
                                                               EPSILON), y_test)}
    return mon


class Standardise(nn.Module):
    def forward(self, x):
        return normalise(x)
