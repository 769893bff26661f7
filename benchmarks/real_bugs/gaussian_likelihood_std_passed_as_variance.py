"""A heteroscedastic regressor has a mean head and a scale head whose output the code
calls the standard deviation, but the Gaussian likelihood it is trained with reads that
output as the VARIANCE (``gaussian_nll_loss(mu, y, var=sigma)``). Training is healthy -
the mean learns as well as ever and the loss falls - but the scale head learns sigma^2
where everyone downstream reads sigma: the reported uncertainty is the square of what it
should be, too narrow where the noise is below 1 and too wide above it, and prediction
intervals built from it miss their coverage.

Reported: "Feat/beta nll" - https://github.com/unit8co/darts/pull/1162 ("Corrects a bug in
`GaussianLikelihood`, where we were using the standard dev instead of the variance"). Here
an MLP on the digits' pixels predicting the digit's (standardised) value plus noise whose
standard deviation grows with the digit (0.1 to 0.55), and a scale head through softplus.

Measured (600 steps, 297 held-out digits): both runs reach the same held-out RMSE of the
mean (0.61 and 0.60); the 90% intervals mu +- 1.645 sigma cover 48% of the held-out
targets with the bug's sigma and 82% with the fixed twin's (``var=sigma ** 2``).
Fix: pass the variance (``sigma ** 2``) where the likelihood expects a variance, or
predict the variance (or its log) and take its square root when reporting a scale.
"""
import torch
import torch.nn.functional as F
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "Feat/beta nll"
LINK = "https://github.com/unit8co/darts/pull/1162"
EXPECTED = ("STD_PASSED_AS_VARIANCE",)
STEPS = 600
HELD_OUT = 297
Z90 = 1.645


class MeanAndScale(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 2))

    def forward(self, x):
        out = self.body(x)
        return torch.stack([out[:, 0], F.softplus(out[:, 1]) + 1e-4], 1)   # mean, sigma


def data():
    x, digits = classification()
    value = digits.float()
    noise_std = 0.1 + 0.05 * value                       # heteroscedastic: 0.1 to 0.55
    y = (value - value.mean()) / value.std() + noise_std * torch.randn(len(value))
    return x, y


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = data()
    model = MeanAndScale()

    def loss_fn(output, target):
        mu, sigma = output[:, 0], output[:, 1]
        if fixed:
            return F.gaussian_nll_loss(mu, target, sigma ** 2)
        return F.gaussian_nll_loss(mu, target, sigma)   # BUG: the std passed as the variance

    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    mon = train_watched(model, optimizer, loss_fn,
                        batches(x[:-HELD_OUT], y[:-HELD_OUT], steps), **watch)
    with torch.no_grad():
        out = model(x[-HELD_OUT:])
    mu, sigma, truth = out[:, 0], out[:, 1], y[-HELD_OUT:]
    mon.test_rmse = round(float(((mu - truth) ** 2).mean().sqrt()), 3)
    mon.test_coverage_90 = round(float(((truth - mu).abs() <= Z90 * sigma).float().mean()), 3)
    return mon
