"""A score-distribution model (NIMA-style: a softmax over ordered rating bins, trained to
match each example's histogram of ratings) whose "earth mover's distance" loss leaves out
the cumulative sums. The EMD between two histograms on ordered bins is the distance
between their CDFs; without ``cumsum`` the loss is the root-mean-square difference of the
histograms themselves, which charges the same for putting mass one bin off as nine bins
off. It is still a loss whose minimum is the right histogram, so it falls and nothing
errors, but its gradient no longer pulls misplaced mass toward the right end of the scale
and the predicted scores stay far from the labels'.

Reported: "EMD loss function maybe wrong" -
https://github.com/titu1994/neural-image-assessment/issues/2 (the reporter showed that the
repository's ``earth_mover_loss`` was ``sqrt(mean(square(y_true - y_pred)))``, with no
CDF, so that a prediction seven bins off scored like one a single bin off; the maintainer
confirmed it and fixed the loss with ``K.cumsum`` over the bins). Here: an MLP on the 8x8
digits predicting a histogram over ten ordered bins, the target a discretised Gaussian
(sd 2 bins) around the digit's value, cut to the ten bins - a broad rating histogram -
the per-example root-mean-square loss averaged over the batch, Adam. Fix: cumulative sums
of both histograms before the difference.

Measured (400 steps, batch 64, 297 held-out digits; the held-out error of the predicted
mean score against the target histogram's mean, in bins, and the held-out EMD): seed 0:
mean-score error 0.49 for the bug against 0.44 for the fixed twin (EMD 0.062 against
0.058); seeds shifted by 1000: 0.46 against 0.42 (0.059 against 0.057). The harm is
modest and steady (about a tenth worse at both seeds, and still 6% worse after 3,000
steps with a narrower histogram): the bug slows and biases the fit, it does not stop it.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, mlp

TITLE = "EMD loss function maybe wrong"
LINK = "https://github.com/titu1994/neural-image-assessment/issues/2"
EXPECTED = ("EMD_WITHOUT_CUMULATIVE_SUM",)
STEPS = 400
HELD_OUT, SPREAD = 297, 2.0
BINS = torch.arange(10.0)


def rating_histograms(labels):
    weights = torch.exp(-0.5 * ((BINS[None, :] - labels[:, None].float()) / SPREAD) ** 2)
    return weights / weights.sum(1, keepdim=True)


def emd(predicted, target):
    """The per-example r=2 EMD of NIMA: the RMS gap between the two CDFs."""
    gap = torch.cumsum(predicted, dim=1) - torch.cumsum(target, dim=1)
    return torch.sqrt((gap ** 2).mean(1))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    order = torch.randperm(len(x))
    x, y = x[order], y[order]
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x[HELD_OUT:], y[HELD_OUT:], steps):
            predicted = torch.softmax(model(xb), dim=1)
            target = rating_histograms(yb)
            if fixed:
                loss = emd(predicted, target).mean()
            else:       # BUG: no cumulative sums - the histograms compared bin by bin
                loss = torch.sqrt(((predicted - target) ** 2).mean(1)).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        predicted = torch.softmax(model(x[:HELD_OUT]), dim=1)
        target = rating_histograms(y[:HELD_OUT])
        mon.held_out_mean_score_error = ((predicted - target) * BINS).sum(1).abs().mean().item()
        mon.held_out_emd = emd(predicted, target).mean().item()
    return mon
