"""Pieces the batch-141 Bayesian-neural-network cases share: the 8x8 digits cut into a small
training set and held-out rows, a mean-field Gaussian linear layer written by hand (weights
``mu + softplus(rho) * eps``, a fresh ``eps`` at every forward pass), a three-layer Bayesian
MLP, and the held-out scores a Bayes-by-backprop network is judged by (Monte Carlo
predictive accuracy and negative log-likelihood)."""
import math

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from benchmarks.real_bugs._calibration_digits import expected_calibration_error
from benchmarks.real_bugs._common import classification, index_batches

TRAIN = 500          # [design] training rows: few, so the prior matters; the rest held out
BATCH = 50           # 10 batches an epoch
HIDDEN = 100
PRIOR_SIGMA = 1.0    # the N(0, 1) prior of Blundell et al.'s Gaussian-prior runs
RHO_INIT = -4.0      # softplus(-4) = 0.018: a small initial posterior spread
PASSES = 20          # Monte Carlo forward passes at test time


def split(seed=0):
    """(x_train, y_train), (x_held_out, y_held_out) of the flat digits."""
    x, y = classification()
    order = torch.from_numpy(np.random.default_rng(seed).permutation(len(x)))
    return (x[order[:TRAIN]], y[order[:TRAIN]]), (x[order[TRAIN:]], y[order[TRAIN:]])


def batches(x, y, steps, seed=0):
    """``steps`` shuffled mini-batches of ``BATCH`` rows, reshuffled every epoch."""
    for index in index_batches(len(x), steps, BATCH, seed):
        yield x[index], y[index]


class BayesLinear(nn.Module):
    """A linear layer with a factorised Gaussian posterior over its weights and bias."""

    def __init__(self, inputs, outputs):
        super().__init__()
        bound = 1 / math.sqrt(inputs)
        self.weight_mu = nn.Parameter(torch.empty(outputs, inputs).uniform_(-bound, bound))
        self.weight_rho = nn.Parameter(torch.full((outputs, inputs), RHO_INIT))
        self.bias_mu = nn.Parameter(torch.zeros(outputs))
        self.bias_rho = nn.Parameter(torch.full((outputs,), RHO_INIT))
        self.sampled = None

    def forward(self, x):
        weight = self.weight_mu + F.softplus(self.weight_rho) * torch.randn_like(self.weight_mu)
        bias = self.bias_mu + F.softplus(self.bias_rho) * torch.randn_like(self.bias_mu)
        self.sampled = (weight, bias)
        return F.linear(x, weight, bias)

    def pairs(self):
        return ((self.weight_mu, self.weight_rho, self.sampled[0]),
                (self.bias_mu, self.bias_rho, self.sampled[1]))

    def kl(self, prior_sigma=PRIOR_SIGMA):
        """Closed-form KL(q || N(0, prior_sigma^2)), summed over every weight and bias."""
        total = 0.0
        for mu, rho, _ in self.pairs():
            sigma = F.softplus(rho)
            total = total + (math.log(prior_sigma) - torch.log(sigma)
                             + (sigma ** 2 + mu ** 2) / (2 * prior_sigma ** 2) - 0.5).sum()
        return total

    def log_posterior(self):
        """log q(w) of the weights the last forward pass drew."""
        return sum(torch.distributions.Normal(mu, F.softplus(rho)).log_prob(w).sum()
                   for mu, rho, w in self.pairs())

    def log_prior(self, prior_sigma=PRIOR_SIGMA):
        """log p(w) of the weights the last forward pass drew, under N(0, prior_sigma^2)."""
        prior = torch.distributions.Normal(0.0, prior_sigma)
        return sum(prior.log_prob(w).sum() for _, _, w in self.pairs())


class BayesMLP(nn.Module):
    def __init__(self, hidden=HIDDEN):
        super().__init__()
        self.l1 = BayesLinear(64, hidden)
        self.l2 = BayesLinear(hidden, hidden)
        self.l3 = BayesLinear(hidden, 10)

    def forward(self, x):
        return self.l3(F.relu(self.l2(F.relu(self.l1(x)))))

    def layers(self):
        return (self.l1, self.l2, self.l3)


@torch.no_grad()
def predictive(model, x, passes=PASSES):
    """The Monte Carlo predictive distribution: softmax averaged over ``passes`` draws."""
    return torch.stack([F.softmax(model(x), 1) for _ in range(passes)]).mean(0)


def scores(mon, probs, y):
    """Held-out accuracy, negative log-likelihood and expected calibration error of
    predictive ``probs``, set on ``mon``."""
    mon.held_out_accuracy = round(float((probs.argmax(1) == y).float().mean()), 4)
    mon.held_out_nll = round(float(-torch.log(probs[torch.arange(len(y)), y] + 1e-12).mean()),
                             4)
    mon.held_out_ece = round(expected_calibration_error(probs, y), 4)
    return mon
