"""A regressor with a mean head and a log-variance head samples its training prediction,
mu + exp(log_var / 2) * noise, and trains it with a plain squared error. Nothing rewards
the variance: the squared error only pays for the noise it adds, so log_var is pushed down
until it reaches the clamp below it (-10), where the clamp's gradient is zero and the head
stops learning. The mean trains, but the uncertainty the model reports is tiny for every
input (sigma near exp(-5) = 0.007), whatever the noise.

Reported: "Remove sampling from `forward`" - https://github.com/pgniewko/gt-pyg/issues/104
("`forward` samples `pred = mu + exp(0.5*log_var)*eps` but nothing trains `log_var`.
Under a point loss the optimum is `sigma=0`, so it slides to the `-10` clamp where gradient
is 0 and the head dies"; the fix returns mu and trains log_var with
``F.gaussian_nll_loss(pred.detach(), y, log_var.exp())`` beside the point loss). Here an
MLP on the digits' pixels predicting the digit's (standardised) value plus noise whose
standard deviation grows with the digit (0.1 to 0.55).

Measured (600 steps, 297 held-out digits): the bug's held-out sigma lies between 0.007 and
0.03 and its 90% intervals cover 3% of the held-out targets (mean RMSE 0.60); the fixed
twin's sigma ranges from 0.15 to 1.07 and covers 82% (mean RMSE 0.59).
Fix: predict mu (no sampling) and give the variance head a likelihood term (Gaussian NLL
on the detached mean), or drop the head.
"""
import torch
import torch.nn.functional as F
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "Remove sampling from `forward`"
LINK = "https://github.com/pgniewko/gt-pyg/issues/104"
EXPECTED = ("VARIANCE_HEAD_WITHOUT_LIKELIHOOD",)
STEPS = 600
HELD_OUT = 297
Z90 = 1.645


class MeanAndLogVar(nn.Module):
    def __init__(self, sample):
        super().__init__()
        self.mu = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 1))
        self.log_var = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 1))
        self.sample = sample

    def forward(self, x):
        mu = self.mu(x).squeeze(1)
        log_var = torch.clamp(self.log_var(x).squeeze(1), min=-10.0, max=10.0)
        if self.sample and self.training:
            mu = mu + torch.exp(0.5 * log_var) * torch.randn_like(mu)
        return torch.stack([mu, log_var], 1)


def data():
    x, digits = classification()
    value = digits.float()
    noise_std = 0.1 + 0.05 * value
    y = (value - value.mean()) / value.std() + noise_std * torch.randn(len(value))
    return x, y


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = data()
    model = MeanAndLogVar(sample=not fixed)

    def loss_fn(output, target):
        pred, log_var = output[:, 0], output[:, 1]
        if fixed:
            return F.mse_loss(pred, target) + F.gaussian_nll_loss(pred.detach(), target,
                                                                  log_var.exp())
        return F.mse_loss(pred, target)          # BUG: a point loss on a sampled prediction

    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    mon = train_watched(model, optimizer, loss_fn,
                        batches(x[:-HELD_OUT], y[:-HELD_OUT], steps), **watch)
    model.eval()
    with torch.no_grad():
        out = model(x[-HELD_OUT:])
    mu, sigma, truth = out[:, 0], (0.5 * out[:, 1]).exp(), y[-HELD_OUT:]
    mon.test_rmse = round(float(((mu - truth) ** 2).mean().sqrt()), 3)
    mon.test_coverage_90 = round(float(((truth - mu).abs() <= Z90 * sigma).float().mean()), 3)
    mon.test_sigma_range = (round(float(sigma.min()), 4), round(float(sigma.max()), 4))
    return mon
