"""A Bayes-by-backprop network whose closed-form Gaussian KL is evaluated the wrong way round:
KL(prior || posterior) instead of KL(posterior || prior) - the two-Gaussian formula with the
prior's mean and spread in the posterior's slots. For a posterior N(mu, sigma^2) against an
N(0, 1) prior the reversed divergence is ``log sigma + (1 + mu^2) / (2 sigma^2) - 1/2``: at
a small spread the 1/sigma^2 term is huge, and every mean is penalised by mu^2 / (2
sigma^2), a weight decay thousands of times too strong. The means collapse to zero and the
network predicts the class prior; the loss falls (it is minimised at the prior too) and
nothing errors.

Reported: "KL divergence" - https://github.com/kumar-shridhar/PyTorch-BayesianCNN/issues/28
(the reporter pointed out that ``BBBlayers.py`` computes KL[p || q] where the ELBO needs
KL[q || p]; a later comment checked against Blundell et al. and other implementations that
the argument order is reversed; issue #73 of the same repository found the prior still
passed in the posterior's place in ``calculate_kl``). Here a 64-100-100-10 mean-field
Gaussian MLP (benchmarks/real_bugs/_bayes.py), 500 training digits, mean cross-entropy +
KL / 500, batches of 50, Adam 3e-3, 1,500 steps. Fix: KL(q || p).

Measured (1,297 held-out digits, 20 Monte Carlo passes): seed 0, held-out accuracy 0.083
for the bug against 0.934 for the fixed twin (NLL 2.31 against 0.34); seeds shifted by
1000, 0.093 against 0.927 (NLL 2.31 against 0.35).
"""
import math

import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._bayes import NoisyBayesMLP, gaussian_kl, mean_posterior_sigma
from benchmarks.real_bugs._bayesian_nets import PRIOR_SIGMA, batches, predictive, scores, split

TITLE = "KL divergence"
LINK = "https://github.com/kumar-shridhar/PyTorch-BayesianCNN/issues/28"
EXPECTED = ("KL_DIRECTION_REVERSED",)
STEPS = 1500


def reversed_kl(mu, sigma, prior_sigma=PRIOR_SIGMA):
    """KL(N(0, prior_sigma^2) || N(mu, sigma^2)): the two-Gaussian formula with the prior
    in the posterior's place, summed over the elements."""
    return (torch.log(sigma) - math.log(prior_sigma)
            + (prior_sigma ** 2 + mu ** 2) / (2 * sigma ** 2) - 0.5).sum()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    (x_train, y_train), (x_held, y_held) = split(seed=0)
    model = NoisyBayesMLP()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    divergence = gaussian_kl if fixed else reversed_kl      # BUG: KL(p || q)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x_train, y_train, steps, seed=0):
            logits = model(xb)
            kl = sum(divergence(mu, F.softplus(rho)) for layer in model.layers()
                     for mu, rho, _ in layer.pairs())
            loss = F.cross_entropy(logits, yb) + kl / len(x_train)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.mean_posterior_sigma = mean_posterior_sigma(model.layers())
    return scores(mon, predictive(model, x_held), y_held)
