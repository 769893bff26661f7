"""Adversarial training with an iterative FGSM (basic iterative method) whose every step
reads the input gradient of the ORIGINAL image: the gradient is taken once, through the
clean batch that requires grad, and each later step perturbs a detached copy whose forward
never reaches that batch again, so .grad keeps the first step's value. Ten steps along one
fixed sign, clipped to the eps-ball, end exactly where a single FGSM step of size eps lands:
the "iterative" attack is FGSM, whose examples a model learns to defeat without becoming
robust. The loss falls, accuracy on the training attack looks fine; nothing raises.

Reported: "Gradient is NOT changing for IT-FGSM" -
https://github.com/ITSEG-MQ/Adv-attack-and-defense-on-driving-model/issues/4 ("I found you
always use the same gradient (wrt original image instead of perturbed image) to update the
image ... Shouldn't it be the new gradient computed at each iteration wrt perturbed
image?": the loop recomputes the loss on the perturbed image, but calls backward on a graph
whose input is the original image, and reads image.grad).
Here an MLP (64-128-128-10) is trained on the iterative attack's examples (eps 0.25, 10
steps of 0.05, only adversarial batches) with Adam for 800 steps on 1,400 digits.
Fix: take each step's gradient at the current perturbed image.

Measured (800 steps; 397 held-out digits; PGD-20 at eps 0.25 from ``_adv.pgd_reference``;
``run``'s mon.accuracy): seed 0, held-out PGD accuracy 0.204 for the bug against 0.343 for
the fixed twin at the same clean accuracy (0.914 and 0.914); seeds shifted by 1000, PGD
0.202 against 0.307 (clean 0.912 against 0.887). With eps 0.2 and 400 steps the gap was
2-3 points: the FGSM-trained model falls behind as training goes on.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._adv import held_out, mlp, split
from benchmarks.real_bugs._common import batches

TITLE = "Gradient is NOT changing for IT-FGSM"
LINK = "https://github.com/ITSEG-MQ/Adv-attack-and-defense-on-driving-model/issues/4"
EXPECTED = ("ATTACK_GRADIENT_STALE",)
STEPS = 800
EPSILON, ALPHA, ATTACK_STEPS = 0.25, 0.05, 10


def iterative_fgsm(model, x, y, fixed):
    image = x.clone().requires_grad_(True)
    perturbed = x.clone()
    for _ in range(ATTACK_STEPS):
        if fixed:
            image = perturbed.clone().requires_grad_(True)
        grad, = torch.autograd.grad(nn.functional.cross_entropy(model(image), y), image)
        # BUG: ``image`` stays the clean batch, so ``grad`` is the first step's every time
        perturbed = perturbed + ALPHA * grad.sign()
        perturbed = torch.min(torch.max(perturbed, x - EPSILON), x + EPSILON).clamp(0, 1)
        perturbed = perturbed.detach()
    return perturbed


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    (x_train, y_train), (x_test, y_test) = split()
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x_train, y_train, steps):
            x_adv = iterative_fgsm(model, xb, yb, fixed)
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(x_adv), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.accuracy = held_out(model, x_test, y_test, EPSILON)
    return mon
