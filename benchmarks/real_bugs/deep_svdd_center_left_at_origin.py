"""Deep SVDD whose objective reads a hypersphere center of 0.0: the center computed from
the network's first forward pass over the data is stored where the loss never looks, so
the network is pulled towards the origin. For a bias-free network whose representation
ends in a ReLU, the origin is exactly the trivial solution (Ruff et al. 2018,
Proposition 1): every unit can be driven to zero for every input, the loss reaches 0 and
the distances to the center stop telling normal images from anomalies. The loss falls
smoothly to zero - which looks like success.

Reported: "v3.6.3: DeepSVDD hypersphere collapse fix" -
https://github.com/yzhao062/pyod/pull/711 (the maintainer's release notes: once the
backward pass was restored, fit() was found to set the center to 0.0 while the
data-initialized center was written to an attribute the objective did not read; with a
bias-free ReLU network that is the collapsed solution, and on an ODDS benchmark most
datasets got a single distinct anomaly score). Here pyod's shape: a bias-free MLP
64-32-16 with a ReLU on the representation, trained with Adam and weight decay on the
digit 0 as the normal class; the other nine digits are the anomalies.
Fix: initialise the center from the mean of the network's initial outputs on the training
data, keep coordinates at least eps = 0.1 away from zero (Ruff's reference code), and let
the objective and the scorer read that center.

Measured (500 Adam steps, batch 32, 118 normal training images; 60 held-out normals, 240
held-out anomalies, seeds 0/1000): held-out AUROC 0.83/0.78 for the bug (the loss ends at
exactly 0; 46%/53% of the held-out scores are tied at 0), 0.99/0.96 for the fixed twin.
(The bias terms of pyod issue #385 were tried too: with biases and the data center, this
network did not collapse in 600 steps - AUROC 0.997/0.983 - so that report is not a case.)
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._one_class import auroc, index_batches, one_class_digits

TITLE = "v3.6.3: DeepSVDD hypersphere collapse fix"
LINK = "https://github.com/yzhao062/pyod/pull/711"
EXPECTED = ("ONE_CLASS_CENTER_AT_TRIVIAL_SOLUTION",)
STEPS = 500
EPS = 0.1           # Ruff's reference code: center coordinates kept at least this far from 0


def svdd_network():
    """pyod's DeepSVDD body: no bias terms, ReLU on the representation."""
    return nn.Sequential(nn.Linear(64, 32, bias=False), nn.LeakyReLU(),
                         nn.Linear(32, 16, bias=False), nn.ReLU())


def initial_center(model, x):
    with torch.no_grad():
        c = model(x).mean(0)
    small = c.abs() < EPS
    c[small & (c < 0)] = -EPS
    c[small & (c >= 0)] = EPS
    return c


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    normals, _, test_x, is_anomaly = one_class_digits(seed=0)
    model = svdd_network()
    model.initialised_center = initial_center(model, normals)   # computed ...
    # BUG: ... but the objective reads a center of 0.0
    center = model.initialised_center if fixed else torch.zeros(16)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, weight_decay=1e-4)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(normals), steps, seed=0):
            loss = ((model(normals[index]) - center) ** 2).sum(1).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        scores = ((model(test_x) - center) ** 2).sum(1)
    mon.held_out_auroc = auroc(scores, is_anomaly)
    mon.tied_at_zero = (scores == 0).float().mean().item()
    return mon
