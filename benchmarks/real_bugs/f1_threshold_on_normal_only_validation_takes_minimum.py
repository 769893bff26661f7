"""An anomaly detector whose threshold is chosen to maximise F1 on a validation set that
holds only normal images. With no anomalies every candidate threshold has F1 = 0, and the
argmax over the candidates (sorted ascending) returns the first - the LOWEST normal score -
so at test time nearly every normal image is flagged. Training is untouched and healthy;
the threshold silently inverts its purpose.

Reported: "[Bug]: F1AdaptiveThreshold incorrectly selects minimum value when no anomalous
images are in validation set" - https://github.com/open-edge-platform/anomalib/issues/2433
(the reporter showed that with labels all 0 the threshold came out as the smallest
prediction, "resulting in an excessively high false alarm rate", where the library's own
warning says it should take the highest normal score; the fix, PR #2430, returns the
maximum when the validation set has no anomalous images; reported again as #3357). Here: an
MLP autoencoder 64-32-8-32-64 on the 8x8 digits, 0 the normal class, 30 of the normal
training images held back as the (all-normal) validation set, Adam; the anomaly score is the
reconstruction MSE. Fix: the highest validation score when there are no anomalies.

Measured (500 Adam steps, batch 32, 88 training images; 60 held-out normals, 240 held-out
anomalies): held-out false-alarm rate 0.98 for the bug against 0.03 for the fixed twin at
seed 0 (recall 1.0 both); seeds shifted by 1000, 0.98 against 0.07.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._anom181 import index_batches, one_class_digits

TITLE = ("[Bug]: F1AdaptiveThreshold incorrectly selects minimum value when no anomalous "
         "images are in validation set")
LINK = "https://github.com/open-edge-platform/anomalib/issues/2433"
EXPECTED = ("F1_THRESHOLD_WITHOUT_ANOMALIES",)
STEPS = 500
NORMAL = 0
VALIDATION = 30         # normal training images held back to set the threshold


def autoencoder():
    return nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 8), nn.ReLU(),
                         nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 64))


def f1_adaptive_threshold(scores, labels, fixed):
    """The candidate threshold (each score) with the best F1 on the labelled set."""
    candidates = scores.sort().values
    f1 = []
    for t in candidates:
        flagged = scores >= t
        tp = (flagged & labels).sum().item()
        precision = tp / max(1, flagged.sum().item())
        recall = tp / max(1, labels.sum().item())
        f1.append(2 * precision * recall / max(1e-12, precision + recall))
    if fixed and not labels.any():
        return candidates[-1]       # the fix: no anomalies, so the highest normal score
    # BUG: every F1 is 0 without anomalies, and argmax picks the first - the lowest score
    return candidates[torch.tensor(f1).argmax()]


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    normals, _, test_x, is_anomaly = one_class_digits(normal=NORMAL, seed=0)
    validation, train = normals[:VALIDATION], normals[VALIDATION:]
    model = autoencoder()
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(train), steps, seed=0):
            batch = train[index]
            loss = ((model(batch) - batch) ** 2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        val_scores = ((model(validation) - validation) ** 2).mean(1)
        test_scores = ((model(test_x) - test_x) ** 2).mean(1)
    threshold = f1_adaptive_threshold(val_scores, torch.zeros(VALIDATION, dtype=torch.bool),
                                      fixed)
    flagged = test_scores > threshold
    anomalous = is_anomaly.bool()
    mon.threshold = threshold.item()
    mon.held_out_recall = (flagged & anomalous).sum().item() / anomalous.sum().item()
    mon.held_out_false_alarm_rate = (flagged & ~anomalous).sum().item() / (~anomalous).sum().item()
    mon.held_out_accuracy = (flagged == anomalous).float().mean().item()
    return mon
