"""PGD adversarial training whose projection step clips each new iterate to the eps-ball
around the PREVIOUS iterate instead of around the clean input. A signed step of size alpha
never leaves a ball of radius eps >= alpha around where it started, so the projection does
nothing: after k steps the perturbation has drifted up to eps + k * alpha from the clean
digit (here 0.1 + 10 x 0.03 = 0.4, four times the budget), clipped only to [0, 1]. The
model is trained on examples far outside the threat model it is meant to defend; the loss
just sits higher (the attack is stronger), nothing raises, and clean accuracy and the
robustness at the real budget both suffer.

Reported: "PGD and BIM are not correctly accounting for eps on branch dev" -
https://github.com/Trusted-AI/adversarial-robustness-toolbox/issues/85 (the maintainer:
"In BIM and EPS attacks the projection to eps is done with respect to previous iteration's
adversarial sample instead of initial benign sample"; fixed on that branch by projecting
``x_adv - x_init`` onto the eps-ball).
Here an MLP (64-128-128-10) is PGD-trained (eps 0.1, 10 steps of 0.03, random start, only
adversarial batches) with Adam for 400 steps on 1,400 digits.
Fix: project onto the eps-ball around the clean batch.

Measured (400 steps; 397 held-out digits; PGD-20 at eps 0.1 from ``_adv.pgd_reference``;
``run``'s mon.accuracy): seed 0, held-out clean accuracy 0.564 for the bug against 0.967
for the fixed twin, PGD accuracy 0.458 against 0.773 (largest training perturbation 0.4
against 0.1); seeds shifted by 1000, clean 0.521 against 0.960, PGD 0.453 against 0.766.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._adv import held_out, mlp, split
from benchmarks.real_bugs._common import batches

TITLE = "PGD and BIM are not correctly accounting for eps on branch dev"
LINK = "https://github.com/Trusted-AI/adversarial-robustness-toolbox/issues/85"
EXPECTED = ("ATTACK_EXCEEDS_EPSILON",)
STEPS = 400
EPSILON, ALPHA, ATTACK_STEPS = 0.1, 0.03, 10


def pgd(model, x, y, fixed):
    x_adv = (x + (torch.rand_like(x) * 2 - 1) * EPSILON).clamp(0, 1).detach()
    for _ in range(ATTACK_STEPS):
        x_adv.requires_grad_(True)
        grad, = torch.autograd.grad(nn.functional.cross_entropy(model(x_adv), y), x_adv)
        stepped = x_adv + ALPHA * grad.sign()
        centre = x if fixed else x_adv          # BUG: the ball around the previous iterate
        x_adv = torch.min(torch.max(stepped, centre - EPSILON), centre + EPSILON)
        x_adv = x_adv.clamp(0, 1).detach()
    return x_adv


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    (x_train, y_train), (x_test, y_test) = split()
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    drift = []
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x_train, y_train, steps):
            x_adv = pgd(model, xb, yb, fixed)
            drift.append(float((x_adv - xb).abs().max()))
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(x_adv), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.accuracy = held_out(model, x_test, y_test, EPSILON)
    mon.accuracy["largest_perturbation"] = round(max(drift), 3)
    return mon
