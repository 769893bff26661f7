"""A mixture density network's loss adds each component's log weight to its log-likelihood
and averages these over the components, instead of taking the log of the weighted SUM of
the component densities (logsumexp): a mixture of log-probabilities, not the
log-probability of a mixture. Every component is then pulled towards every target, so the
components cannot split the two branches of a one-to-many target between them; the loss
still falls and the run looks healthy.

Reported: "Question regards the loss" -
https://github.com/tonyduan/mixture-density-network/issues/1 (a user proposes
``loglik += torch.log(pi.probs); loss = -torch.mean(loglik)`` in place of
``-torch.logsumexp(torch.log(pi.probs) + loglik, dim=1)``; the author: "What you propose is
a mixture of log-probabilities, not the log-probability of a mixture model"). Here a
3-component MDN on a two-branch set y = +-(1 + 0.5 x) + 0.1 noise, Adam, 128-row batches.
Fix: ``-torch.logsumexp(log_pi + loglik, dim=1).mean()``.

Measured (held-out mixture NLL, nats, 1024 rows): bug 1.17 vs fixed -0.07;
seeds + 1000: 1.20 vs -0.20.
"""
import math

import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._prob import bimodal_1d, minibatches, mixture_nll, trunk

TITLE = "Question regards the loss"
LINK = "https://github.com/tonyduan/mixture-density-network/issues/1"
EXPECTED = ("LOG_PROBS_POOLED_BEFORE_WEIGHTING",)
STEPS = 300
K = 3


def heads(model, x):
    out = model(x)
    log_pi = F.log_softmax(out[:, :K], dim=1)
    mean = out[:, K:2 * K].unsqueeze(-1)
    std = torch.exp(out[:, 2 * K:].clamp(-7, 5)).unsqueeze(-1)
    return log_pi, mean, std


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    (x, y), (x_test, y_test) = bimodal_1d()
    model = trunk(3 * K)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in minibatches(x, y, steps):
            log_pi, mean, std = heads(model, xb)
            loglik = (-torch.log(std) - 0.5 * math.log(2 * math.pi)
                      - (yb.unsqueeze(1) - mean) ** 2 / (2 * std ** 2)).sum(-1)
            if fixed:
                loss = -torch.logsumexp(log_pi + loglik, dim=1).mean()
            else:
                loss = -(log_pi + loglik).mean()       # BUG: mean of log-terms over components
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        mon.held_out_nll = mixture_nll(*heads(model, x_test), y_test)
    return mon
