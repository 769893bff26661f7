"""FGSM adversarial training with a random start whose signed step is a full eps taken on
top of the random start, with no projection afterwards: the random start already spends up
to eps, the gradient step adds another eps, and the adversarial digits sit up to 2 * eps
from the clean ones (here 0.5 where the budget is 0.25). The model trains on perturbations
twice the size of the threat model it defends; nothing raises, and the loss only looks a
little higher than it should.

Reported: "Incorrect computation of perturbation budget in BIM / PGD with random init" -
https://github.com/Trusted-AI/adversarial-robustness-toolbox/issues/73 ("When running FGM
with random init, the random initialization step is applied, followed by an `eps`
pertubation attack. This results in a final attack budget larger than `eps`"; reproduced
with eps 0.3 on MNIST, the L-inf size of the perturbation measured above 0.3; fixed in
pull request #74 by projecting the result back onto the eps-ball).
Here an MLP (64-128-128-10) is FGSM-trained (eps 0.25, uniform random start in the
eps-ball, one step of eps, only adversarial batches) with Adam for 400 steps on 1,400
digits.
Fix: project the perturbation back onto the eps-ball around the clean batch.

Measured (400 steps; 397 held-out digits; PGD-20 at eps 0.25 from ``_adv.pgd_reference``;
``run``'s mon.accuracy): seed 0, held-out clean accuracy 0.773 for the bug against 0.882
for the fixed twin, with no robustness bought by it (PGD accuracy 0.252 against 0.232;
largest training perturbation 0.5 against 0.25); seeds shifted by 1000, clean 0.796
against 0.917, PGD 0.247 against 0.199. At eps 0.15 the loss was small (clean 0.950
against 0.965): the doubled budget costs clean accuracy once 2 * eps is a large share of
the pixel range, as with the report's eps 0.3 on MNIST.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._adv import held_out, mlp, split
from benchmarks.real_bugs._common import batches

TITLE = "Incorrect computation of perturbation budget in BIM / PGD with random init"
LINK = "https://github.com/Trusted-AI/adversarial-robustness-toolbox/issues/73"
EXPECTED = ("ATTACK_EXCEEDS_EPSILON",)
STEPS = 400
EPSILON = 0.25


def fgsm_random_start(model, x, y, fixed):
    start = (x + (torch.rand_like(x) * 2 - 1) * EPSILON).clamp(0, 1).requires_grad_(True)
    grad, = torch.autograd.grad(nn.functional.cross_entropy(model(start), y), start)
    x_adv = start + EPSILON * grad.sign()     # BUG: a full eps on top of the random start
    if fixed:
        x_adv = torch.min(torch.max(x_adv, x - EPSILON), x + EPSILON)
    return x_adv.clamp(0, 1).detach()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    (x_train, y_train), (x_test, y_test) = split()
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    sizes = []
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x_train, y_train, steps):
            x_adv = fgsm_random_start(model, xb, yb, fixed)
            sizes.append(float((x_adv - xb).abs().max()))
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(x_adv), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.accuracy = held_out(model, x_test, y_test, EPSILON)
    mon.accuracy["largest_perturbation"] = round(max(sizes), 3)
    return mon
