"""BYOL's online prediction of each view is regressed on the target's projection of THAT
SAME view (view 1 against view 1, view 2 against view 2) instead of the other view. The
online and target networks read identical inputs, so the predictor only has to undo the
small gap between the online weights and their moving average: nothing asks the features
to agree across augmentations, which is the whole of what BYOL teaches. The loss falls
fast and smoothly to near zero (it looks like BYOL converging), nothing errors, and the
backbone ends no better than where it started.

Reported: "Incorrect Specification of loss function." -
https://github.com/The-AI-Summer/byol-cifar10/issues/1 (the reporter found the notebook
computing the loss between the student's prediction and the teacher's projection of the
same view, "between the same instance but passed from 2 different branches"; the fix is
the symmetric cross-view loss, prediction of view one against the target of view two
and prediction of view two against the target of view one). Here: a digits MLP backbone
with projector and predictor, an EMA target (tau 0.99), two random views per digit
(shift, pixel mask, noise), Adam; a nearest-centroid probe reads the backbone. Fix: the
cross-view pairing.

Measured (600 steps, batch 128; nearest-centroid probe on the backbone's normalised
features, fit on 900 clean digits, scored on views of the other 897): seed 0, 0.241 for
the bug against 0.554 for the fixed twin; seeds shifted by 1000, 0.264 against 0.579 (the
untrained backbone scores 0.23 at seed 0). The bug run's loss is 0.10 by step 100 and
0.02 at the end; the twin's is 1.7 at step 100 and 0.63 at the end.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._ssl179 import (Online, digits, ema_update, probe_accuracy,
                                          regression, target_of, two_view_batches)

TITLE = "Incorrect Specification of loss function."
LINK = "https://github.com/The-AI-Summer/byol-cifar10/issues/1"
EXPECTED = ("SSL_POSITIVES_ARE_THE_SAME_VIEW",)
STEPS = 600
TAU = 0.99


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = digits()
    model = Online()
    target = target_of(model)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for v1, v2 in two_view_batches(x, steps):
            p1, p2 = model(v1), model(v2)
            with torch.no_grad():
                z1, z2 = target(v1), target(v2)
            if fixed:
                loss = regression(p1, z2) + regression(p2, z1)
            else:   # BUG: each prediction regressed on the target of the same view
                loss = regression(p1, z1) + regression(p2, z2)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            ema_update(target, model, TAU)
            mon.step(loss)
    model.eval()
    mon.held_out_probe_accuracy = probe_accuracy(model.backbone, x, y)
    return mon
