"""A negative-binomial count head (a mean mu and a dispersion from two outputs) builds
``torch.distributions.NegativeBinomial`` with the scipy success probability
``p = r / (r + mu)``. torch's ``probs`` is the other one: its mean is ``r p / (1 - p)``, so
the distribution the loss scores has mean ``r^2 / mu``, not ``mu``. The likelihood is still
a valid negative binomial and training converges - the network learns whatever ``mu``
makes ``r^2 / mu`` fit the counts - so nothing fails; but the output trained and read as
"the mean" falls where the counts rise, and every prediction and mean-based metric made
from it is wrong.

Reported: "[BUG] NegativeBinomial uses the scipy probs convention with torch - the mean head
parameterizes r^2/mu" - https://github.com/OpenTabular/DeepTab/issues/418 (the library's
NegativeBinomialDistribution set ``p = r / (r + mean)`` and passed it as torch's ``probs``;
"training still converges", but the distribution's mean is r^2/mu - mu = 10, r = 1 gives
0.1 - so ``predict()`` and mean-based metrics consume garbage; the fix, pull request #429:
``probs = mean / (r + mean)``). Here an MLP on the digits' pixels predicts a count drawn
from a negative binomial with mean 0.5 + digit and total_count 5 (softplus mean and
dispersion heads, r = 1 / dispersion), Adam 3e-3, the mean NLL.
Fix: ``probs = mu / (r + mu)`` (torch's convention).

Measured (800 steps, batch 64, 397 held-out digits; mean absolute error of the mean head's
prediction against each held-out digit's true mean 0.5 + digit): seed 0: 2.71 for the bug
against 1.40 for the fixed twin (predicting the training mean count: 2.49); seeds shifted
by 1000: 3.03 against 1.52 (2.49).
"""
import torch
import torch.nn.functional as F

from benchmarks.real_bugs._common import mlp
from benchmarks.real_bugs._ord178 import HELD_OUT, digit_counts, train_watched

TITLE = ("[BUG] NegativeBinomial uses the scipy probs convention with torch - the mean head "
         "parameterizes r\u00b2/\u00b5")
LINK = "https://github.com/OpenTabular/DeepTab/issues/418"
EXPECTED = ("NEGATIVE_BINOMIAL_PROBS_CONVENTION",)
STEPS = 800


def heads(out):
    mean = F.softplus(out[:, 0]) + 1e-4
    r = 1.0 / (F.softplus(out[:, 1]) + 1e-4)
    return mean, r


def nb_loss(out, counts, fixed):
    mean, r = heads(out)
    if fixed:
        probs = mean / (r + mean)          # torch: mean = r * probs / (1 - probs)
    else:
        probs = r / (r + mean)             # BUG: scipy's success probability as torch's probs
    probs = probs.clamp(1e-6, 1 - 1e-6)
    return -torch.distributions.NegativeBinomial(total_count=r, probs=probs).log_prob(
        counts).mean()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, counts, true_mean = digit_counts("negative_binomial", dispersion=5.0)
    model = mlp(outputs=2)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    mon = train_watched(model, optimizer, lambda out, c: nb_loss(out, c, fixed), x, counts,
                        steps, watch)
    with torch.no_grad():
        mean, _ = heads(model(x[-HELD_OUT:]))
    truth = true_mean[-HELD_OUT:]
    mon.held_out_mean_error = round(float((mean - truth).abs().mean()), 2)
    mon.baseline_mean_error = round(float((counts[:-HELD_OUT].mean() - truth).abs().mean()), 2)
    return mon
