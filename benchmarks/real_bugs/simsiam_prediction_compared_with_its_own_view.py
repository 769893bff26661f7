"""SimSiam's symmetric loss written with each view's prediction compared against the
(stop-gradient) projection of THAT SAME view - criterion(p0, z0) + criterion(p1, z1) -
instead of the other view's. Nothing in the loss then asks the two augmentations of an
image to agree: the predictor only has to map a projection onto itself, which it learns
in a few hundred steps, the loss drops to about -1 (it looks like SimSiam converging) and
the backbone learns nothing about what the augmentations leave unchanged.

Reported: "Fix SimSiam Tutorial" - https://github.com/lightly-ai/lightly/pull/599 (the
maintainer's fix of lightly's SimSiam tutorial, closing #595, "fixes bug where arguments
were not correctly passed to loss function"; the tutorial's loop read
``p0, p1, z0, z1 = model(x0, x1)`` then ``loss = 0.5 * (criterion(p0, z0) +
criterion(p1, z1))``, merged as #600 "Fix loss arguments"). Here a digits MLP backbone
with a batch-normalised projector and predictor (SimSiam: no target network, the
projection detached), two random views per digit (shift, pixel mask, noise), Adam; a
nearest-centroid probe reads the backbone on augmented held-out digits.
Fix: 0.5 * (criterion(p0, z1) + criterion(p1, z0)).

Measured (400 steps, batch 128): held-out probe accuracy 0.219 for the bug against 0.534
for the fixed twin at seed 0; seeds + 1000: 0.252 against 0.542 (the untrained backbone
scores about 0.23).
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._ssl179 import Online, digits, probe_accuracy, two_view_batches

TITLE = "Fix SimSiam Tutorial"
LINK = "https://github.com/lightly-ai/lightly/pull/599"
EXPECTED = ("SSL_POSITIVES_ARE_THE_SAME_VIEW",)
STEPS = 400


def criterion(p, z):
    """Negative cosine similarity (lightly's NegativeCosineSimilarity), batch mean."""
    return -F.cosine_similarity(p, z, dim=1).mean()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = digits()
    model = Online()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for x0, x1 in two_view_batches(x, steps):
            z0, z1 = model.project(x0), model.project(x1)
            p0, p1 = model.predictor(z0), model.predictor(z1)
            z0, z1 = z0.detach(), z1.detach()
            if fixed:
                loss = 0.5 * (criterion(p0, z1) + criterion(p1, z0))
            else:   # BUG: each prediction compared with the projection of its own view
                loss = 0.5 * (criterion(p0, z0) + criterion(p1, z1))
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
            mon.step(loss)
    model.eval()
    mon.held_out_probe_accuracy = probe_accuracy(model.backbone, x, y)
    return mon
