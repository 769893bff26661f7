"""An autoencoder anomaly detector built with a dropout layer AFTER its output layer (and
a batch norm on the raw inputs before the first linear layer). In training the loss compares
the input with a reconstruction whose entries are randomly zeroed and the rest scaled by
1/(1-p); the squared error is smallest when the network's un-dropped output is (1-p) times
the input, so at scoring time (dropout off) every reconstruction is shrunk towards zero and
the anomaly score of a normal row carries a p^2 |x|^2 term that has nothing to do with
being anomalous. Training runs, the loss falls and levels off; nothing errors.

Reported: "Pytorch Autoencoder starts with Batchnorm before first Layer" -
https://github.com/yzhao062/pyod/issues/434 (the reporter found that pyod's PyTorch
AutoEncoder put a BatchNorm before the first linear layer and a Dropout after the last
linear layer, "purposely set[ting] elements of the reconstructed sample (output) to zero",
unlike the TensorFlow version; fixed by the reporter's PR #435, which orders each hidden
block linear -> batch norm -> activation -> dropout and leaves the output layer bare).
Here pyod's shape on a 16-column standardised tabular one-class set
(benchmarks/real_bugs/_anom181.py): 16-32-4-32-16, dropout 0.2, Adam. Fix: PR #435's
layout (no batch norm on the inputs, no dropout after the output layer).

Measured (800 Adam steps, batch 32, 600 training rows; 200 held-out normals, 200 held-out
anomalies): seed 0, held-out AUROC 0.70 for the bug against 0.74 for the fixed twin, and
held-out reconstruction MSE of the normal rows 0.38 against 0.29; seeds shifted by 1000,
AUROC 0.67 against 0.73, MSE 0.44 against 0.32. (On the 8x8 digits, one digit normal, the
same bug cost reconstruction MSE - 0.033 against 0.024 - but no AUROC: the digits are too
easy to tell apart for the shrinkage to matter.)
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._anom181 import auroc, index_batches, tabular_one_class

TITLE = "Pytorch Autoencoder starts with Batchnorm before first Layer"
LINK = "https://github.com/yzhao062/pyod/issues/434"
EXPECTED = ("DROPOUT_ON_OUTPUT",)
STEPS = 800
HIDDEN = (32, 4, 32)
P = 0.2


def autoencoder(features, fixed):
    sizes = (features,) + HIDDEN
    layers = [] if fixed else [nn.BatchNorm1d(features)]    # BUG: batch norm on the inputs
    for inputs, outputs in zip(sizes[:-1], sizes[1:]):
        if fixed:       # PR #435's order: linear, batch norm, activation, dropout
            layers += [nn.Linear(inputs, outputs), nn.BatchNorm1d(outputs), nn.ReLU(),
                       nn.Dropout(P)]
        else:
            layers += [nn.Linear(inputs, outputs), nn.ReLU(), nn.Dropout(P),
                       nn.BatchNorm1d(outputs)]
    layers.append(nn.Linear(sizes[-1], features))
    if not fixed:
        layers.append(nn.Dropout(P))        # BUG: dropout on the reconstruction itself
    return nn.Sequential(*layers)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, test_x, is_anomaly = tabular_one_class(seed=0)
    mean, std = train.mean(0), train.std(0)             # pyod's preprocessing=True
    train, test_x = (train - mean) / std, (test_x - mean) / std
    model = autoencoder(train.shape[1], fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(train), steps, seed=0):
            batch = train[index]
            loss = ((model(batch) - batch) ** 2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        errors = (model(test_x) - test_x) ** 2
    mon.held_out_auroc = auroc(errors.mean(1), is_anomaly)
    mon.held_out_normal_mse = errors[is_anomaly == 0].mean().item()
    return mon
