"""A Bayes-by-backprop MLP whose ``log_variational_posterior`` adds the second layer's term
twice and leaves the third (output) layer's out: ``l1 + l2 + l2`` where ``l1 + l2 + l3`` was
meant. The Monte Carlo KL estimate ``log q(w) - log p(w)`` then lacks the output layer's
entropy, so nothing holds that layer's posterior spread up and it stays at its tiny initial
value (the output weights become a point estimate), while the second layer's entropy counts
double and its spread is pushed wide. The network still trains and classifies; its held-out
predictive likelihood is worse and the "Bayesian" output layer is not Bayesian at all.

Reported: "Typo in log_variational_posterior computation" -
https://github.com/nitarshan/bayes-by-backprop/issues/2 (in the widely read Bayes-by-backprop
notebook, the network's log posterior summed ``self.l2`` twice and never ``self.l3``, so l2's
posterior was counted twice and l3's not at all; fixed by
https://github.com/nitarshan/bayes-by-backprop/pull/3). Here a 64-100-100-10 mean-field
Gaussian MLP (benchmarks/real_bugs/_bayesian_nets.py), the KL estimated from the sampled
weights as in the notebook (N(0, 1) prior), divided by the 500 training rows next to the
mean cross-entropy; batches of 50, Adam 3e-3, held-out rows scored by 20 Monte Carlo passes.
Fix: sum the three layers' log posteriors.

Measured (1,500 steps, 1,297 held-out digits; the harm is in the predictive distribution,
not the argmax): seed 0, held-out predictive NLL 0.40 for the bug against 0.36 for the fixed
twin, expected calibration error 0.22 against 0.17 (accuracy 0.941 against 0.928); seeds
shifted by 1000, NLL 0.39 against 0.37, ECE 0.19 against 0.17 (accuracy 0.929 against
0.930). The output layer's mean posterior spread ends at 0.017 in the bug run (its initial
0.018) against 0.28 in the twin.
"""
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._bayesian_nets import BayesMLP, batches, predictive, scores, split

TITLE = "Typo in log_variational_posterior computation"
LINK = "https://github.com/nitarshan/bayes-by-backprop/issues/2"
EXPECTED = ("POSTERIOR_TERM_MISSES_LAYER",)
STEPS = 1500


def log_variational_posterior(model, fixed):
    if fixed:
        return (model.l1.log_posterior() + model.l2.log_posterior()
                + model.l3.log_posterior())
    return (model.l1.log_posterior() + model.l2.log_posterior()
            + model.l2.log_posterior())                      # BUG: l2 twice, l3 never


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    (x_train, y_train), (x_held, y_held) = split(seed=0)
    model = BayesMLP()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x_train, y_train, steps, seed=0):
            nll = F.cross_entropy(model(xb), yb)
            log_prior = model.l1.log_prior() + model.l2.log_prior() + model.l3.log_prior()
            kl = log_variational_posterior(model, fixed) - log_prior
            loss = nll + kl / len(x_train)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon = scores(mon, predictive(model, x_held), y_held)
    mon.output_layer_spread = round(float(F.softplus(model.l3.weight_rho.detach()).mean()), 4)
    return mon
