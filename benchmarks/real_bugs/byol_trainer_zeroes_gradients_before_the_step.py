"""A BYOL training loop calls ``optimizer.zero_grad()`` between ``loss.backward()`` and
``optimizer.step()``. The gradients the backward pass just wrote are cleared (set to
None) before the optimizer reads them, so every step is a no-op: the online network never
changes, and the target network's moving average converges onto the same unchanged
weights. The loss is computed, logged and even drifts (each batch draws new views),
nothing errors, and the "pretrained" backbone is the random initialisation.

Reported: "[BUG] in trainer.py" - https://github.com/lucidrains/byol-pytorch/issues/93
(the reporter: "I don't think you can set the gradients to zero right before stepping
the optimizer", pointing at the trainer's zero_grad/step lines; the maintainer agreed,
"thanks!", and the fix zeroes the gradients before the backward pass instead). Here: a
digits MLP backbone with projector and predictor, an EMA target (tau 0.99), two random
views per digit (shift, pixel mask, noise), Adam; a nearest-centroid probe reads the
backbone. Fix: zero_grad, backward, step.

Measured (600 steps, batch 128; nearest-centroid probe on the backbone's normalised
features, fit on 900 clean digits, scored on views of the other 897): seed 0, 0.227 for
the bug (exactly the untrained backbone's score) against 0.554 for the fixed twin; seeds
shifted by 1000, 0.251 against 0.579.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._ssl179 import (Online, digits, ema_update, probe_accuracy,
                                          regression, target_of, two_view_batches)

TITLE = "[BUG] in trainer.py"
LINK = "https://github.com/lucidrains/byol-pytorch/issues/93"
EXPECTED = ("GRADIENTS_DISCARDED",)
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
            loss = regression(p1, z2) + regression(p2, z1)
            if fixed:
                optimizer.zero_grad()
                loss.backward()
            else:   # BUG: the fresh gradients cleared just before the step reads them
                loss.backward()
                optimizer.zero_grad()
            optimizer.step()
            ema_update(target, model, TAU)
            mon.step(loss)
    model.eval()
    mon.held_out_probe_accuracy = probe_accuracy(model.backbone, x, y)
    return mon
