"""An autoencoder anomaly detector trained on every training row, the rows already
labelled anomalous included: it learns to reconstruct the anomalies too, and their
reconstruction error - the anomaly score - no longer stands out. The loss falls as it
should (the model does reconstruct what it was given); nothing errors.

Reported: "test(anomaly): stop training detectors on labelled anomalies" -
https://github.com/adaptive-machine-learning/CapyMOA/pull/415 (the anomaly tests fed every
instance of a data set with 39.6% positives to the detectors' training, so they were trained
on the very points they were scored against as anomalies; the merged fix still scores
every instance but trains only on those not labelled anomalous, and seven of the ten
detectors' AUCs rose - e.g. 0.54 to 0.87, 0.42 to 0.59; that PR's own autoencoder went
from 0.57 to 0.49 on a label that is price direction, not an anomaly). Here an MLP
autoencoder (64-32-8-32-64) on the digits, 8 the normal class: the training rows are the
114 normal images and 76 labelled anomalies (40% of the rows, the other digits).
Fix: train only on the rows not labelled anomalous.

Measured (500 Adam steps, batch 32; 60 held-out normals, 240 held-out anomalies, seeds
0/1000): held-out AUROC 0.76/0.75 for the bug, 0.98/0.95 for the fixed twin.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._one_class import auroc, index_batches, one_class_digits

TITLE = "test(anomaly): stop training detectors on labelled anomalies"
LINK = "https://github.com/adaptive-machine-learning/CapyMOA/pull/415"
EXPECTED = ("ANOMALIES_IN_ONE_CLASS_TRAINING",)
STEPS = 500
ANOMALY_SHARE = 0.4
NORMAL = 8          # the normal digit


def autoencoder():
    return nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 8), nn.ReLU(),
                         nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 64))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    normals, others, test_x, is_anomaly = one_class_digits(normal=NORMAL, seed=0)
    n_anomalies = round(len(normals) * ANOMALY_SHARE / (1 - ANOMALY_SHARE))
    rows = torch.cat([normals, others[:n_anomalies]])
    labelled_anomaly = torch.cat([torch.zeros(len(normals)), torch.ones(n_anomalies)])
    # BUG: every row trains the detector; the fix keeps the rows not labelled anomalous
    train = rows[labelled_anomaly == 0] if fixed else rows
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
        scores = ((model(test_x) - test_x) ** 2).mean(1)
    mon.held_out_auroc = auroc(scores, is_anomaly)
    return mon
