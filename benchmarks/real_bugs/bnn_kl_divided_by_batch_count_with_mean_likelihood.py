"""A Bayes-by-backprop network whose ELBO scales the KL term by one over the number of
mini-batches (Blundell et al.'s minibatch weighting, written for a SUMMED likelihood) while
the likelihood is the batch MEAN cross-entropy. Per training example the KL then weighs
``batch size`` times what the ELBO gives it (KL / M against a likelihood already divided by
B, where the per-example ELBO is KL / N with N = M * B): the prior swamps the data, every
posterior is pulled back to N(0, 1), and the network predicts near chance. The loss falls
steadily (the KL term shrinks), nothing errors, and the train-mode accuracy the loop never
prints is the only sign.

Reported: "Bays-by-back/ loss function" - https://github.com/pawni/BayesByHypernet/issues/2
(the reporter pointed out that the code divides by the number of batches while averaging the
cross-entropy over the batch, where the paper sums it; the author agreed the scaling must
match - with a mean likelihood the KL is divided by the number of data points - and said a
refactor would fix it). Here a 64-100-100-10 mean-field Gaussian MLP
(benchmarks/real_bugs/_bayesian_nets.py: softplus spread, fresh noise each pass, closed-form
KL to an N(0, 1) prior) on 500 training digits, batches of 50 (10 an epoch), Adam 3e-3,
held-out rows scored by 20 Monte Carlo passes. Fix: ``KL / len(train)`` next to the mean
cross-entropy.

Measured (1,500 steps, 1,297 held-out digits): seed 0, held-out accuracy 0.07 for the bug
against 0.93 for the fixed twin (predictive NLL 2.53 against 0.34); seeds shifted by 1000,
0.09 against 0.93 (NLL 2.61 against 0.35).
"""
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._bayesian_nets import BATCH, BayesMLP, batches, predictive, scores, split

TITLE = "Bays-by-back/ loss function"
LINK = "https://github.com/pawni/BayesByHypernet/issues/2"
EXPECTED = ("ELBO_KL_OVERWEIGHTED",)
STEPS = 1500


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    (x_train, y_train), (x_held, y_held) = split(seed=0)
    model = BayesMLP()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    n_batches = len(x_train) // BATCH
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x_train, y_train, steps, seed=0):
            nll = F.cross_entropy(model(xb), yb)            # mean over the batch
            kl = sum(layer.kl() for layer in model.layers())
            if fixed:
                loss = nll + kl / len(x_train)               # per-example ELBO
            else:
                loss = nll + kl / n_batches                  # BUG: KL per batch, NLL per example
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return scores(mon, predictive(model, x_held), y_held)
