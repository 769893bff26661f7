"""A first tabular binary classifier fed its features in raw units (ages around 38, fares
around 90, credit scores around 650) instead of standardised ones: the first layer's
pre-activations are hundreds of units wide, its sigmoid hidden units sit saturated at 0 or
1 with almost no slope, and the small network learns little beyond the columns that happen
to keep a unit in range - the loss creeps down, nothing errors.

Reported: "PyTorch Binary Classification - same network structure, 'simpler' data, but
worse performance?" - https://newbe.dev/pytorch-binary-classification-same-network-structure-simpler-data-but-worse-performance
(a Stack Overflow question and its accepted answer, mirrored: the same sigmoid MLP with
BCELoss that separates a toy data set centred at 0 fails on "simpler" data centred around
92 with a large variance; the answer: "Your input data is not normalized", use
(x - mean) / std, after which it converges fast). Set-up here: a synthetic Titanic/churn
table (benchmarks/real_bugs/_beginner_binary.py: six numeric columns in raw units, two 0/1
flags, 40% positives), a 8-32-32-1 MLP with sigmoid hidden units and a sigmoid output,
BCELoss, Adam at 1e-3, minibatches of 64. Fix: standardise every column with the training
rows' mean and std (held-out rows with the same statistics).

Measured (held-out accuracy on 500 rows, threshold 0.5; 60% of the rows are negative):
seed 0, 0.80 for the bug against 0.85 for the fixed twin; seeds shifted by 1000, 0.75
against 0.87.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._beginner_binary import (accuracy, first_mlp, minibatches,
                                                   standardise, tabular)

TITLE = ("PyTorch Binary Classification - same network structure, 'simpler' data, but "
         "worse performance?")
LINK = ("https://newbe.dev/pytorch-binary-classification-same-network-structure-simpler-"
        "data-but-worse-performance")
EXPECTED = ("UNNORMALIZED_INPUTS", "INPUT_CHANNELS_ON_DIFFERENT_SCALES")
STEPS = 300


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x_train, y_train, x_test, y_test = tabular()
    if fixed:
        x_train, x_test = standardise(x_train, x_test)
    # BUG when not fixed: the columns go in as read from the CSV
    model = nn.Sequential(first_mlp(hidden_act=nn.Sigmoid), nn.Sigmoid())
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.BCELoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in minibatches(x_train, y_train, steps):
            loss = loss_fn(model(xb), yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        mon.held_out_accuracy = accuracy(model(x_test) > 0.5, y_test)
    return mon
