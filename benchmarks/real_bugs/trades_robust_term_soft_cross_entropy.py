"""TRADES whose robust term is written as a soft cross-entropy, -sum softmax(f(x)) *
log_softmax(f(x')), in place of the KL divergence KL(softmax(f(x)) || softmax(f(x'))). The
two differ by the entropy of the clean prediction, H(softmax(f(x))), a constant only when
the clean prediction is held fixed; TRADES lets the gradient flow through both, so the
cross-entropy version also MINIMISES the clean prediction's entropy, weighted by beta. At
TRADES' beta = 6 that term outweighs the natural cross-entropy: the cheapest way down is
one confident class for every input, clean and adversarial alike (then the robust term is
zero). The loss settles, nothing raises, and the classifier predicts one digit.

Reported: "About loss_robust implemented in trades.py" -
https://github.com/yaodongyu/TRADES/issues/12 ("I've changed loss_robust in trades.py to
use cross entropy loss ... but then found that in that case the training fails to converge
when beta=6.0. I suspect that this is because dCE(f(x), f(x'))/dw and dKL(f(x), f(x'))/dw
is different as f(x') should be also a variable"; the maintainer: keep the KL, or use a
smaller beta, such as 2.0, with the cross-entropy).
Here an MLP (64-128-128-10) is TRADES-trained on 1,400 digits (the attack maximises the KL
to the clean prediction in eval mode: eps 0.15, 10 steps of 0.04 from a 0.001-scale
Gaussian start; beta 6) with Adam for 400 steps.
Fix: the KL divergence for the robust term, as in the paper's code.

Measured (400 steps; 397 held-out digits; PGD-20 at eps 0.15 from ``_adv.pgd_reference``;
``run``'s mon.accuracy): seed 0, held-out clean accuracy 0.103 for the bug (one class for
every digit) against 0.955 for the fixed twin, PGD accuracy 0.103 against 0.652; seeds
shifted by 1000, clean 0.078 against 0.945, PGD 0.078 against 0.650.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._adv import held_out, mlp, split
from benchmarks.real_bugs._common import batches

TITLE = "About loss_robust implemented in trades.py"
LINK = "https://github.com/yaodongyu/TRADES/issues/12"
EXPECTED = ("CONSISTENCY_TARGET_NOT_DETACHED", "SOFT_TARGET_ENTROPY_MINIMISED")
STEPS = 400
EPSILON, ALPHA, ATTACK_STEPS, BETA = 0.15, 0.04, 10, 6.0


def trades_attack(model, x):
    model.eval()
    with torch.no_grad():
        p_clean = F.softmax(model(x), dim=1)
    x_adv = (x + 0.001 * torch.randn_like(x)).detach()
    for _ in range(ATTACK_STEPS):
        x_adv.requires_grad_(True)
        kl = F.kl_div(F.log_softmax(model(x_adv), dim=1), p_clean, reduction="sum")
        grad, = torch.autograd.grad(kl, x_adv)
        x_adv = x_adv + ALPHA * grad.sign()
        x_adv = torch.min(torch.max(x_adv, x - EPSILON), x + EPSILON).clamp(0, 1).detach()
    model.train()
    return x_adv


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    (x_train, y_train), (x_test, y_test) = split()
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x_train, y_train, steps):
            x_adv = trades_attack(model, xb)
            logits, logits_adv = model(xb), model(x_adv)
            natural = F.cross_entropy(logits, yb)
            if fixed:
                robust = F.kl_div(F.log_softmax(logits_adv, dim=1), F.softmax(logits, dim=1),
                                  reduction="batchmean")
            else:   # BUG: the clean prediction's entropy comes with it, through its gradient
                robust = -(F.softmax(logits, dim=1)
                           * F.log_softmax(logits_adv, dim=1)).sum(1).mean()
            loss = natural + BETA * robust
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.accuracy = held_out(model, x_test, y_test, EPSILON)
    return mon
