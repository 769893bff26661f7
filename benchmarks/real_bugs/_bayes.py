"""Pieces the batch-193 cases share (Bayesian nets and variational inference): a mean-field
Gaussian linear layer whose reparameterisation noise has a settable spread, a three-layer
Bayesian MLP built from it, and the closed-form KL of a factorised Gaussian to N(0, s^2).
The data split, batches and held-out scores come from the batch-141 helper
(benchmarks/real_bugs/_bayesian_nets.py)."""
import math

import torch
import torch.nn.functional as F
from torch import nn

from benchmarks.real_bugs._bayesian_nets import HIDDEN, PRIOR_SIGMA, BayesLinear


class NoisyBayesLinear(BayesLinear):
    """``BayesLinear`` with weights ``mu + softplus(rho) * noise_std * eps``: noise_std 1 is
    the reparameterisation of N(mu, softplus(rho)^2)."""

    def __init__(self, inputs, outputs, noise_std=1.0):
        super().__init__(inputs, outputs)
        self.noise_std = noise_std

    def forward(self, x):
        sigma_w, sigma_b = F.softplus(self.weight_rho), F.softplus(self.bias_rho)
        weight = self.weight_mu + sigma_w * self.noise_std * torch.randn_like(sigma_w)
        bias = self.bias_mu + sigma_b * self.noise_std * torch.randn_like(sigma_b)
        self.sampled = (weight, bias)
        return F.linear(x, weight, bias)


class NoisyBayesMLP(nn.Module):
    def __init__(self, noise_std=1.0, hidden=HIDDEN):
        super().__init__()
        self.l1 = NoisyBayesLinear(64, hidden, noise_std)
        self.l2 = NoisyBayesLinear(hidden, hidden, noise_std)
        self.l3 = NoisyBayesLinear(hidden, 10, noise_std)

    def forward(self, x):
        return self.l3(F.relu(self.l2(F.relu(self.l1(x)))))

    def layers(self):
        return (self.l1, self.l2, self.l3)


def gaussian_kl(mu, sigma, prior_sigma=PRIOR_SIGMA):
    """KL(N(mu, sigma^2) || N(0, prior_sigma^2)), summed over the elements."""
    return (math.log(prior_sigma) - torch.log(sigma)
            + (sigma ** 2 + mu ** 2) / (2 * prior_sigma ** 2) - 0.5).sum()


def mean_posterior_sigma(layers):
    """The mean softplus spread over every weight and bias of ``layers``."""
    with torch.no_grad():
        sigmas = torch.cat([F.softplus(p).flatten() for layer in layers
                            for p in (layer.weight_rho, layer.bias_rho)])
    return round(float(sigmas.mean()), 4)
