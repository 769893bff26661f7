"""A heteroscedastic regression loss written by hand whose variance penalty is the Gaussian
normaliser itself, sqrt(2 pi sigma^2), where its logarithm belongs. The data term
(y - mu)^2 / (2 sigma^2) is right, so the loss still falls and the mean is learned; but the
variance that minimises (y - mu)^2 / (2 v) + sqrt(2 pi v) is (e^2 / sqrt(2 pi))^(2/3), not
the squared error e^2: where the noise is large the predicted spread is much too small,
where it is tiny it is too large. The intervals mislead exactly where they matter and the
held-out likelihood is poor. No error, no NaN: a smooth loss that goes down.

Reported: "Uncertainty loss and training details" -
https://github.com/luckybird1994/HQSOD/issues/7 (the reporter found that the paper's
uncertainty loss, equation 8, has log(variance) / 2 as its second term while the released
code uses sqrt(2 * pi * variance), and asked how the variance was predicted; the fix is the
paper's term, the log of the normaliser). Here a mean-and-variance MLP (tanh body, mean
head, softplus variance head) trained with Adam on a 1-D regression whose noise scale grows
from 0.05 to 1.55 (benchmarks/real_bugs/_unc182.py). Fix: the penalty 0.5 * log(2 pi v).

Measured (1,500 steps; 1,024 held-out points; "noisy" is |x| > 2, true noise scale above
1.05, "quiet" is |x| < 0.5): seed 0, held-out NLL 1.070 for the bug against 0.934 for the
fixed twin, 90% intervals covering 0.72 of the noisy points against 0.85, predicted standard
deviation 0.65 of the true noise scale there against 0.94 (1.58 against 1.15 on quiet
points); seeds shifted by 1000, NLL 1.173 against 1.045, noisy coverage 0.74 against 0.88,
noisy std ratio 0.68 against 0.99. The mean is learned equally (held-out MSE 0.83 both).
"""
import math

import torch

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._unc182 import (MeanVariance, coverage90, gaussian_nll, noise_std,
                                          regression_data)

TITLE = "Uncertainty loss and training details"
LINK = "https://github.com/luckybird1994/HQSOD/issues/7"
EXPECTED = ("VARIANCE_PENALTY_NOT_LOG",)
STEPS = 1500


def uncertainty_loss(mean, variance, y, fixed):
    data = (y - mean) ** 2 / (2 * variance)
    if fixed:
        penalty = 0.5 * torch.log(2 * math.pi * variance)
    else:
        penalty = torch.sqrt(2 * math.pi * variance)     # BUG: the normaliser, not its log
    return (data + penalty).mean()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    (x_train, y_train), (x_test, y_test) = regression_data()
    model = MeanVariance()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(x_train), steps, batch_size=64):
            mean, variance = model(x_train[index])
            loss = uncertainty_loss(mean, variance, y_train[index], fixed)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
        with torch.no_grad():
            mean, variance = model(x_test)
    mon.test_nll = gaussian_nll(mean, variance, y_test)
    mon.test_coverage90 = coverage90(mean, variance, y_test)
    noisy = x_test.abs() > 2
    quiet = x_test.abs() < 0.5
    mon.noisy_coverage90 = coverage90(mean[noisy], variance[noisy], y_test[noisy])
    mon.noisy_std_ratio = float((variance[noisy].sqrt() / noise_std(x_test[noisy])).mean())
    mon.quiet_std_ratio = float((variance[quiet].sqrt() / noise_std(x_test[quiet])).mean())
    mon.test_mse = float(((mean - y_test) ** 2).mean())
    return mon
