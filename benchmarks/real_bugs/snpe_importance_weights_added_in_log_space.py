"""Sequential neural posterior estimation (SNPE-B) whose importance weights are ADDED to the
log-likelihood instead of multiplying it. The later rounds simulate parameters from a
proposal (the previous round's posterior), not from the prior, so each pair's term must be
weighted by prior(theta) / proposal(theta) for the density estimator to learn the true
posterior. Written in log space as ``log q(theta | x) + log prior - log proposal``, the two
extra terms do not depend on the network: they shift the loss by a constant per sample and
vanish from the gradient. The estimator learns the proposal's posterior - pulled toward
wherever the proposal sits - while the loss falls as usual.

Reported: "SNPE-B bug importance weights" - https://github.com/sbi-dev/sbi/issues/71 (the
maintainers found that SNPE-B formed ``calibration_kernel * (log_prob_posterior +
log_prob_prior - log_prob_proposal)``, with the importance weights in log space; the fix
multiplies ``log_prob_posterior`` by ``exp(log_prob_prior - log_prob_proposal)``, in
https://github.com/sbi-dev/sbi/pull/70). Here a 2-D Gaussian simulator (x = theta + noise
0.5, prior N(0, I)), a proposal N((1.5, -1), 0.8^2 I) standing for an earlier round's
posterior, a diagonal-Gaussian conditional density q(theta | x) from an MLP, Adam. Fix: the
per-pair log-density multiplied by its weight prior / proposal (self-normalised over the
batch).

Measured (1,200 steps of 256 proposal pairs; held-out negative log-likelihood of 4,096 true
(theta, x) pairs drawn from the prior, in nats, and the mean distance of the estimated
posterior means from the exact Gaussian posterior's): seed 0, NLL 1.82 for the bug against
1.30 for the fixed twin (posterior mean off by 0.50 against 0.10); seeds shifted by 1000,
NLL 1.75 against 1.43 (0.42 against 0.23).
"""
import math

import torch

import nndebug as nd

TITLE = "SNPE-B bug importance weights"
LINK = "https://github.com/sbi-dev/sbi/issues/71"
EXPECTED = ("IMPORTANCE_WEIGHTS_WITHOUT_GRADIENT_EFFECT",)
STEPS = 1200
BATCH, NOISE = 256, 0.5
PROPOSAL_MEAN, PROPOSAL_STD = torch.tensor([1.5, -1.0]), 0.8


def gaussian_log_prob(value, mean, std):
    std = torch.as_tensor(std)
    return (-0.5 * ((value - mean) / std) ** 2 - torch.log(std)
            - 0.5 * math.log(2 * math.pi)).sum(-1)


class Posterior(torch.nn.Module):
    """q(theta | x): a diagonal Gaussian whose mean and log-scale an MLP reads from x."""

    def __init__(self):
        super().__init__()
        self.net = torch.nn.Sequential(torch.nn.Linear(2, 64), torch.nn.Tanh(),
                                       torch.nn.Linear(64, 64), torch.nn.Tanh(),
                                       torch.nn.Linear(64, 4))

    def forward(self, theta, x):
        mean, log_std = self.net(x).chunk(2, dim=-1)
        return gaussian_log_prob(theta, mean, log_std.exp())

    def mean(self, x):
        return self.net(x).chunk(2, dim=-1)[0]


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    model = Posterior()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            theta = PROPOSAL_MEAN + PROPOSAL_STD * torch.randn(BATCH, 2)
            x = theta + NOISE * torch.randn(BATCH, 2)
            log_q = model(theta, x)
            log_prior = gaussian_log_prob(theta, 0.0, 1.0)
            log_proposal = gaussian_log_prob(theta, PROPOSAL_MEAN, PROPOSAL_STD)
            if fixed:
                weight = torch.softmax(log_prior - log_proposal, dim=0) * BATCH
                loss = -(weight * log_q).mean()
            else:        # BUG: the log importance weight added, a constant to the gradient
                loss = -(log_q + log_prior - log_proposal).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    theta = torch.randn(4096, 2)
    x = theta + NOISE * torch.randn(4096, 2)
    with torch.no_grad():
        mon.held_out_nll = -model(theta, x).mean().item()
        exact = x / (1 + NOISE ** 2)              # the Gaussian posterior's mean
        mon.held_out_posterior_mean_error = (model.mean(x) - exact).norm(dim=1).mean().item()
    return mon
