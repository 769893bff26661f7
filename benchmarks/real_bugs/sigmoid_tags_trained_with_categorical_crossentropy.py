"""A multi-label tagger with the right output layer - one sigmoid per label - compiled
with Keras's categorical cross-entropy instead of the binary one. Keras's
categorical_crossentropy on probabilities first divides the outputs by their sum, so the
loss only sees each label's SHARE of the total: it pushes the absent labels towards 0 but
never asks a present label to exceed any level, and the sigmoids of a sample's labels
settle wherever their ratios are right. The decision threshold of 0.5 then reads
outputs whose absolute level nothing trained.

Reported: "The sum of multi-class prediction is not 1 using tensorflow and keras?" -
https://geeksmental.com/question/the-sum-of-multi-class-prediction-is-not-1-using-tensorflow-and-keras
(text classification "with multiple labels": an LSTM ending in Dense(4,
activation='sigmoid'), compiled with loss='categorical_crossentropy' and
categorical_accuracy; model.predict gave the same four values for every test row, whose
sum is not 1). Here 2x2 digit collages with 10 labels "digit d appears"
(benchmarks/real_bugs/_mlb.py), an MLP ending in a sigmoid, Keras's categorical
cross-entropy written out (outputs over their row sum, clipped, -sum(y * log)), Adam; a
label predicted where its sigmoid is above 0.5. Fix: binary cross-entropy on the sigmoid
outputs (loss='binary_crossentropy').

Measured (300 steps, 1,000 held-out collages): held-out micro-F1 0.03 for the bug
(recall 0.01: the sigmoids of the present labels settle below 0.5 too) against 0.69 for
the fixed twin (recall 0.58); seeds + 1000: 0.03 (recall 0.01) against 0.68 (recall
0.57).
"""
import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._mlb import batches, read_out, tag_data, tagger

TITLE = "The sum of multi-class prediction is not 1 using tensorflow and keras?"
LINK = ("https://geeksmental.com/question/"
        "the-sum-of-multi-class-prediction-is-not-1-using-tensorflow-and-keras")
EXPECTED = ("MULTI_LABEL_WITH_CROSS_ENTROPY",)
STEPS = 300
EPSILON = 1e-7      # Keras's backend epsilon, the clip of categorical_crossentropy


def keras_categorical_crossentropy(target, output):
    """keras.losses.categorical_crossentropy(target, output, from_logits=False)."""
    output = output / output.sum(dim=-1, keepdim=True)
    output = output.clamp(EPSILON, 1.0 - EPSILON)
    return -(target * torch.log(output)).sum(dim=-1).mean()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x, y, x_test, y_test, _, _ = tag_data(rng)
    model = nn.Sequential(tagger(y.shape[1]), nn.Sigmoid())
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for rows in batches(len(x), steps, rng):
            output = model(x[rows])
            if fixed:
                loss = F.binary_cross_entropy(output, y[rows])
            else:       # BUG: the categorical loss on independent sigmoid outputs
                loss = keras_categorical_crossentropy(y[rows], output)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        predicted = model(x_test) > 0.5
    return read_out(mon, predicted, y_test)
