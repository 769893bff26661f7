"""Deep CORAL whose alignment loss is divided by the feature count one time too many. The
CORAL loss is the squared Frobenius distance between the source and target feature
covariances over 4 d^2: ``sum((C_s - C_t) ** 2) / (4 * d * d)``. Written as a ``mean``
of the squared differences (already a division by d^2) and then divided by ``4 * d * 4``,
it comes out 4d times smaller - 256 times for 64 features. The alignment term still
appears in the loss, still gets a gradient, and still falls; it is just far too weak to
move the features under SGD, so the run trains a source-only classifier that reads the
target domain badly.

Reported: "I think the CORAL loss is not correctly implemented." -
https://github.com/jindongwang/transferlearning/issues/27 (the library's coral_loss.py
computed ``torch.mean(torch.mul(xc - xct, xc - xct))`` and divided by ``4*d*4``; the
reporter: the normaliser is 4 d^2, and the Frobenius norm sums the squared entries; the
maintainer agreed and corrected it). Here a feature MLP (64 -> 64 -> 64, ReLU) and a linear
label head train on the labelled source half of the 8x8 digits and the unlabelled target
half (contrast lowered and lifted, x * 0.5 + 0.4; benchmarks/real_bugs/_da.py), cross-
entropy on the source plus 10 x CORAL between the two batches' features, SGD 0.05 with
momentum 0.9 (Deep CORAL's optimiser), batches of 64. Fix: ``sum(...) / (4 * d * d)``.

Measured (held-out target accuracy after 600 steps; source accuracy 0.96-0.97 in every
run): seed 0, 0.86 for the bug against 0.95 for the fixed twin (0.83 without CORAL);
seeds shifted by 1000, 0.72 against 0.95 (0.70 without CORAL).
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._da import domains, draw

TITLE = "I think the CORAL loss is not correctly implemented."
LINK = "https://github.com/jindongwang/transferlearning/issues/27"
EXPECTED = ("LOSS_TERM_NEGLIGIBLE",)
STEPS = 600
CORAL_WEIGHT = 10.0


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 64),
                                      nn.ReLU())
        self.head = nn.Linear(64, 10)

    def forward(self, x):
        return self.head(self.features(x))


def covariance(features):
    centred = features - features.mean(0, keepdim=True)
    return centred.t() @ centred / (len(features) - 1)


def coral(source_features, target_features, fixed):
    d = source_features.shape[1]
    squared = (covariance(source_features) - covariance(target_features)) ** 2
    if fixed:
        return squared.sum() / (4 * d * d)
    return squared.mean() / (4 * d * 4)        # BUG: mean (/ d^2) and then / (16 d)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(1)
    source, source_test, target, target_test = domains(0)
    model = Net()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            xs, ys = draw(rng, source)
            xt, _ = draw(rng, target)
            fs, ft = model.features(xs), model.features(xt)
            loss = (nn.functional.cross_entropy(model.head(fs), ys)
                    + CORAL_WEIGHT * coral(fs, ft, fixed))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        mon.held_out_source_accuracy = (model(source_test[0]).argmax(1)
                                        == source_test[1]).float().mean().item()
        mon.held_out_target_accuracy = (model(target_test[0]).argmax(1)
                                        == target_test[1]).float().mean().item()
    return mon
