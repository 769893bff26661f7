"""An autoencoder anomaly detector whose preprocessing divides each column by its MEAN
where the standard deviation belongs: ``(x - mean) / mean``. A column whose values sit near
zero (a rate, a residual, a centred sensor) is blown up many times over, a column with a
negative mean is flipped, and the columns far from zero are squeezed; the reconstruction
loss, summed over columns, is then dominated by the few blown-up columns, and the
deviations the anomalies make in the others barely move the anomaly score. Training runs,
the loss falls (it is fitting what it was given), the scores come out; nothing errors.

Reported: "Autoencoder - errors in auto_encoder_torch.py file (preprocessing)" -
https://github.com/yzhao062/pyod/issues/390 (in pyod's PyTorch AutoEncoder, with the default
preprocessing=True, the line meant to store the training standard deviation stored
``np.mean`` of the data instead, so every input, at fit and at scoring, was divided by the
column means; confirmed in the duplicate #391, and the fit was later rewritten to standardise
with the real deviation). Here: a 16-column tabular one-class set (benchmarks/real_bugs/
_anom181.py; normal rows near a 4-dimensional linear manifold, four columns with means
0.05-0.3, the others offset up to +-4; anomalies step off the manifold), an MLP autoencoder
16-32-4-32-16 with Adam. Fix: divide by the training columns' standard deviations.

Measured (600 Adam steps, batch 32, 600 training rows; 200 held-out normals and 200
held-out anomalies): held-out AUROC 0.87 for the bug against 0.98 for the fixed twin at
seed 0; with every seed shifted by 1000, 0.71 against 0.81.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._anom181 import auroc, index_batches, tabular_one_class

TITLE = "Autoencoder - errors in auto_encoder_torch.py file (preprocessing)"
LINK = "https://github.com/yzhao062/pyod/issues/390"
EXPECTED = ("UNNORMALIZED_INPUTS",)
STEPS = 600


def autoencoder(features):
    return nn.Sequential(nn.Linear(features, 32), nn.ReLU(), nn.Linear(32, 4), nn.ReLU(),
                         nn.Linear(4, 32), nn.ReLU(), nn.Linear(32, features))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, test_x, is_anomaly = tabular_one_class(seed=0)
    mean = train.mean(0)
    # BUG: the column means are stored as the scale too; the fix stores the deviations
    std = train.std(0) if fixed else train.mean(0)
    train_n, test_n = (train - mean) / std, (test_x - mean) / std
    model = autoencoder(train.shape[1])
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(train_n), steps, seed=0):
            batch = train_n[index]
            loss = ((model(batch) - batch) ** 2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        scores = ((model(test_n) - test_n) ** 2).mean(1)
    mon.held_out_auroc = auroc(scores, is_anomaly)
    return mon
