"""A variational Bayesian layer that keeps each weight's LOG VARIANCE but whose closed-form
KL to the N(0, 1) prior is written for a log STANDARD DEVIATION:
``-logvar + 0.5 * (exp(logvar)^2 + mu^2) - 0.5`` where ``-0.5 * logvar + 0.5 * (exp(logvar)
+ mu^2) - 0.5`` is the KL of N(mu, exp(logvar)). The misread term rewards spread twice as
much as the true KL at small variances (``-logvar`` for ``-0.5 logvar``), so the posterior
spreads wider than the data allow and the network fits worse; its loss still falls and
nothing errors (both expressions are minimised at the prior).

Reported: "Small error in the kl-divergence" -
https://github.com/KarenUllrich/Tutorial_BayesianCompressionForDL/issues/1 (the reporter
found that the convolutional layers' ``kl_divergence`` treated ``weight_logvar`` as a log
standard deviation while the dense layers read it as the log variance; the authors
confirmed - only the dense implementation had been tested - and pushed the dense layers'
expression for the convolutional ones). Here a 64-100-100-10 mean-field Gaussian MLP
(benchmarks/real_bugs/_bayesian_nets.py; the log variance computed from its softplus spread)
on 500 training digits, KL / 500 next to the mean cross-entropy, batches of 50, Adam 3e-3,
held-out rows scored by 20 Monte Carlo passes. Fix: the log-variance KL.

Measured (1,500 steps, 1,297 held-out digits): seed 0, held-out predictive NLL 0.48 for the
bug against 0.34 for the fixed twin, expected calibration error 0.25 against 0.16 (accuracy
0.926 against 0.934); seeds shifted by 1000, NLL 0.51 against 0.35, ECE 0.24 against 0.15
(accuracy 0.909 against 0.931).
"""
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._bayesian_nets import BayesMLP, batches, predictive, scores, split

TITLE = "Small error in the kl-divergence"
LINK = "https://github.com/KarenUllrich/Tutorial_BayesianCompressionForDL/issues/1"
EXPECTED = ("KL_LOG_VARIANCE_READ_AS_LOG_STD",)
STEPS = 1500


def kl_divergence(model, fixed):
    total = 0.0
    for layer in model.layers():
        for mu, rho, _ in layer.pairs():
            logvar = 2 * torch.log(F.softplus(rho))
            if fixed:
                element = -0.5 * logvar + 0.5 * (logvar.exp() + mu ** 2) - 0.5
            else:
                element = -logvar + 0.5 * (logvar.exp().pow(2) + mu ** 2) - 0.5   # BUG
            total = total + element.sum()
    return total


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    (x_train, y_train), (x_held, y_held) = split(seed=0)
    model = BayesMLP()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x_train, y_train, steps, seed=0):
            nll = F.cross_entropy(model(xb), yb)
            loss = nll + kl_divergence(model, fixed) / len(x_train)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return scores(mon, predictive(model, x_held), y_held)
