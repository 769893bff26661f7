"""A multi-label tagger whose output layer is a softmax, trained with binary cross-entropy
on its multi-hot rows. The softmax makes the labels share one unit of probability, so a
collage showing three digits can at best give each of them a third: no label of a
many-label sample ever reaches the 0.5 decision threshold, and the binary cross-entropy
keeps pushing the absent labels down, which only takes more probability from the present
ones. Nothing fails, the loss falls, and the tagger names at most one label per sample.

Reported: "How to train a multi-label Classifier" -
https://github.com/keras-team/keras/issues/741 (the poster trained "a multi-label
softmax classifier" on multi-hot rows; the first answer: "Don't use softmax. Use sigmoid
units in the output layer and then use binary_crossentropy loss"; the poster: "my loss is
not convergence", its predictions all near 0). Here 2x2 digit collages with 10 labels
"digit d appears" (benchmarks/real_bugs/_mlb.py), an MLP tagger ending in the activation
layer, BCELoss on its outputs, Adam. Fix: a sigmoid output layer (one independent
probability per label).

Measured (300 steps, 1,000 held-out collages, a label predicted when its output is above
0.5): held-out micro-F1 0.22 for the bug (recall 0.12: a label only where it is the
collage's one digit) against 0.69 for the fixed twin (recall 0.58); seeds + 1000: 0.21
(recall 0.12) against 0.68 (recall 0.57).
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._mlb import batches, read_out, tag_data, tagger

TITLE = "How to train a multi-label Classifier"
LINK = "https://github.com/keras-team/keras/issues/741"
EXPECTED = ("MULTI_LABEL_WITH_CROSS_ENTROPY",)
STEPS = 300


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x, y, x_test, y_test, _, _ = tag_data(rng)
    # BUG: a softmax output layer for labels that do not exclude each other
    model = nn.Sequential(tagger(y.shape[1]), nn.Sigmoid() if fixed else nn.Softmax(dim=1))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.BCELoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for rows in batches(len(x), steps, rng):
            loss = loss_fn(model(x[rows]), y[rows])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        predicted = model(x_test) > 0.5
    return read_out(mon, predicted, y_test)
