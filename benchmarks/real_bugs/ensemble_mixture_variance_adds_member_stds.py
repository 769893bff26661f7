"""A deep ensemble of mean-variance regressors whose combined predictive variance adds the
members' standard deviations where their variances belong. Each member predicts a mean and
a standard deviation; the ensemble is read as a uniform mixture, whose variance is the mean
of the members' sigma^2 plus the spread of their means. Averaging sigma instead gives a
"variance" that is too large wherever the noise is below 1 and too small wherever it is
above 1, so the ensemble's intervals are far too wide on quiet inputs and too narrow on
noisy ones, and its held-out likelihood is poor. Training is untouched (every member's own
Gaussian NLL is right); the mixture formula runs afterwards. No error.

Reported: "`DeepEnsembleRegression` doesn't reduce to `MVERegression` for 1 member" -
https://github.com/lightning-uq-box/lightning-uq-box/issues/143 (with a single member the
ensemble's predicted sigma differed from the member's own; the reporter found that
compute_aleatoric_uncertainty and compute_predictive_uncertainty averaged the members'
sigmas without squaring them, against Kendall and Gal's equation 9, and sent the two-line
fix squaring them). Here five mean-variance MLPs (a tanh body, a mean head and a softplus
standard-deviation head) trained together with one Adam, each on its Gaussian NLL, on a 1-D
regression whose noise scale grows from 0.05 to 1.55 (benchmarks/real_bugs/_unc182.py).
Fix: the mixture variance mean(sigma_m^2) + mean(mu_m^2) - mu^2.

Measured (1,500 steps; 1,024 held-out points; "quiet" is |x| < 1, where the true noise
scale is below 0.55): seed 0, held-out NLL 1.092 for the bug against 0.930 for the fixed
twin, the predicted standard deviation on quiet points 2.27 times the true noise scale
against 1.14, 90% intervals covering 0.997 of the quiet points against 0.955 (0.875 against
0.881 of the noisy ones); seeds shifted by 1000, NLL 1.159 against 1.046, quiet std ratio
2.14 against 1.03, quiet coverage 0.997 against 0.908.
"""
import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._unc182 import (MeanVariance, coverage90, gaussian_nll, noise_std,
                                          regression_data)

TITLE = "`DeepEnsembleRegression` doesn't reduce to `MVERegression` for 1 member"
LINK = "https://github.com/lightning-uq-box/lightning-uq-box/issues/143"
EXPECTED = ("ENSEMBLE_VARIANCE_FROM_STDS",)
STEPS = 1500
MEMBERS = 5


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    (x_train, y_train), (x_test, y_test) = regression_data()
    ensemble = nn.ModuleList(MeanVariance() for _ in range(MEMBERS))
    optimizer = torch.optim.Adam(ensemble.parameters(), lr=3e-3)
    with nd.watch(ensemble, optimizer, **watch) as mon:
        for index in index_batches(len(x_train), steps, batch_size=64):
            xb, yb = x_train[index], y_train[index]
            loss = 0
            for member in ensemble:
                mean, variance = member(xb)
                loss = loss + F.gaussian_nll_loss(mean, yb, variance, full=True)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
        with torch.no_grad():
            outputs = [member(x_test) for member in ensemble]
    means = torch.stack([mean for mean, _ in outputs])
    sigmas = torch.stack([variance.sqrt() for _, variance in outputs])   # what members report
    mixture_mean = means.mean(0)
    if fixed:
        aleatoric = (sigmas ** 2).mean(0)
    else:
        aleatoric = sigmas.mean(0)           # BUG: standard deviations averaged as variances
    mixture_variance = aleatoric + (means ** 2).mean(0) - mixture_mean ** 2
    mon.test_nll = gaussian_nll(mixture_mean, mixture_variance, y_test)
    mon.test_coverage90 = coverage90(mixture_mean, mixture_variance, y_test)
    quiet = x_test.abs() < 1
    mon.quiet_coverage90 = coverage90(mixture_mean[quiet], mixture_variance[quiet], y_test[quiet])
    mon.quiet_std_ratio = float((mixture_variance[quiet].sqrt()
                                 / noise_std(x_test[quiet])).mean())
    mon.noisy_coverage90 = coverage90(mixture_mean[~quiet], mixture_variance[~quiet],
                                      y_test[~quiet])
    return mon
