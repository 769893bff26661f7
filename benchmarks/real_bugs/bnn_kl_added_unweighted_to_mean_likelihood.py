"""A Bayesian neural network trained on ``NLL + KL`` with the KL over all the weights added
at full weight to a likelihood averaged over one mini-batch. The ELBO's KL is paid once for
the whole data set; next to a per-example likelihood it must be divided by the number of
training examples (or weighted by a small beta). Added whole, it outweighs the data term
hundreds of times: the optimiser's best move is to put every weight's posterior back on the
prior, and the network predicts at chance. The training loss falls the whole run (the KL
shrinks fast), so the run looks like it is learning.

Reported: "Replicate paper results" -
https://github.com/kumar-shridhar/PyTorch-BayesianCNN/issues/43
(users could not reproduce the paper's accuracies with the repository's Bayesian CNNs - one
run stuck near 23% validation accuracy with a training loss of about 170,000, nearly all of
it ``train_kl_div``; the maintainer's answer: the loss NLL + KL needs a beta on the KL, NLL + beta * KL, which "solves
the convergence issue"; the repository then added beta schedules). Here a 64-100-100-10
mean-field Gaussian MLP (benchmarks/real_bugs/_bayesian_nets.py) on 500 training digits,
batches of 50, Adam 3e-3, held-out rows scored by 20 Monte Carlo passes. Fix: beta = 1 /
len(train) (the per-example ELBO).

Measured (1,500 steps, 1,297 held-out digits): seed 0, held-out accuracy 0.08 for the bug
against 0.93 for the fixed twin (predictive NLL 2.78 against 0.34); seeds shifted by 1000,
0.06 against 0.93 (NLL 3.94 against 0.35).
"""
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._bayesian_nets import BayesMLP, batches, predictive, scores, split

TITLE = "Replicate paper results"
LINK = "https://github.com/kumar-shridhar/PyTorch-BayesianCNN/issues/43"
EXPECTED = ("ELBO_KL_OVERWEIGHTED",)
STEPS = 1500


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    (x_train, y_train), (x_held, y_held) = split(seed=0)
    model = BayesMLP()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    beta = 1 / len(x_train) if fixed else 1.0               # BUG (unfixed): the KL at full weight
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x_train, y_train, steps, seed=0):
            nll = F.cross_entropy(model(xb), yb)
            kl = sum(layer.kl() for layer in model.layers())
            loss = nll + beta * kl
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return scores(mon, predictive(model, x_held), y_held)
