"""An autoencoder anomaly detector whose alarm threshold is 1.1 times the LARGEST
reconstruction error on its training data, while that training data is an unlabelled
stream with some anomalies in it. The autoencoder reconstructs those few anomalies worst,
so the maximum - and the threshold - sits at an anomaly's error, and held-out anomalies no
worse than it pass as normal. Training is healthy (the loss falls, the normal rows are
reconstructed well); the failure is in the number the scores are compared with, and
nothing reports it.

Reported: "Update Threshold Calulation" - https://github.com/AICoE/log-anomaly-detector/issues/18
(the maintainers found that taking the maximum training distance as the base of the
anomaly threshold meant "previous anomalies (when included into training data) are no
longer recognized as anomalies"; fixed in PR #19 by setting the threshold from the mean and
standard deviation of the training distances, the factor raised from 1.1 to 3.1). Here: an
MLP autoencoder 64-32-8-32-64 on the 8x8 digits, 0 the normal class, trained on the 118
normal training images plus 6 unlabelled other digits (5% contamination), Adam.
Fix: threshold = mean + 3.1 std of the training errors.

Measured (500 Adam steps, batch 32; 60 held-out normals, 240 held-out anomalies):
held-out recall of the anomalies 0.36 for the bug against 0.93 for the fixed twin (F1 0.53
against 0.96, no false alarm either way) at seed 0; seeds shifted by 1000, recall 0.48
against 0.95 (F1 0.64 against 0.98).
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._anom181 import index_batches, one_class_digits

TITLE = "Update Threshold Calulation"
LINK = "https://github.com/AICoE/log-anomaly-detector/issues/18"
EXPECTED = ("ANOMALY_THRESHOLD_AT_TRAINING_MAXIMUM",)
STEPS = 500
NORMAL = 0
CONTAMINATION = 0.05    # share of the unlabelled training rows that are anomalies
MAX_FACTOR = 1.1        # the detector's INFER_ANOMALY_THRESHOLD before the fix
STD_FACTOR = 3.1        # ... and after it (mean + 3.1 std of the training errors)


def autoencoder():
    return nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 8), nn.ReLU(),
                         nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 64))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    normals, others, test_x, is_anomaly = one_class_digits(normal=NORMAL, seed=0)
    n_bad = round(len(normals) * CONTAMINATION / (1 - CONTAMINATION))
    train = torch.cat([normals, others[:n_bad]])      # unlabelled: a log stream as it came
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
        train_errors = ((model(train) - train) ** 2).mean(1)
        test_errors = ((model(test_x) - test_x) ** 2).mean(1)
    if fixed:
        threshold = train_errors.mean() + STD_FACTOR * train_errors.std()
    else:   # BUG: the largest training error - one of the unlabelled anomalies - sets it
        threshold = MAX_FACTOR * train_errors.max()
    flagged = test_errors > threshold
    anomalous = is_anomaly.bool()
    mon.threshold = threshold.item()
    mon.held_out_recall = (flagged & anomalous).sum().item() / anomalous.sum().item()
    mon.held_out_false_alarm_rate = \
        (flagged & ~anomalous).sum().item() / (~anomalous).sum().item()
    precision = (flagged & anomalous).sum().item() / max(1, flagged.sum().item())
    recall = mon.held_out_recall
    mon.held_out_f1 = 2 * precision * recall / max(1e-12, precision + recall)
    return mon
