"""Per-sample weights that balance a rare class silently dropped as soon as a validation
split is asked for: the fit routine carves the validation rows off the inputs and targets
but not off the weights, and trains with ``weights = None`` from then on - unweighted - so
the rare positives the weights were meant to lift stay below the threshold. Nothing warns;
the loss and the validation loss look like any run's.

Reported: "Per-Sample Weighting does not work when valid_size is used" -
https://github.com/aigamedev/scikit-neuralnetwork/issues/238 ("When I set the valid_size to
any number greater than zero, then per-sample weighting is disabled"; the same library's
issue #219 shows its batch loop falling back to a weight of 1.0 when the weights are
missing). Here: one digit (8) against the nine others with 12 positive training rows among
about 1,150 (benchmarks/real_bugs/_imb186.py), sample weights = inverse class frequency,
valid_size 0.1, an MLP with one logit, BCE weighted per row, Adam, batches of 64, the
validation loss read every 50 steps. Fix: split the weights with the rows and keep them.

Measured (300 steps; on 535 held-out digits, 52 of them positives, at p > 0.5): seed 0,
recall of the positives 0.00 for the bug against 0.79 for the fixed twin (balanced accuracy
0.50 against 0.84); seeds shifted by 1000, 0.00 against 0.62 (balanced 0.50 against 0.76).
"""
import numpy as np
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._common import index_batches, mlp
from benchmarks.real_bugs._imb186 import binary_scores, inverse_frequency, rare_binary

TITLE = "Per-Sample Weighting does not work when valid_size is used"
LINK = "https://github.com/aigamedev/scikit-neuralnetwork/issues/238"
EXPECTED = ("RARE_POSITIVES_NEVER_PREDICTED",)
STEPS = 300
BATCH = 64
VALID_SIZE = 0.1
VALIDATE_EVERY = 50


def split_off_validation(x, y, w, valid_size, fixed, rng):
    order = rng.permutation(len(x))
    cut = int(len(x) * valid_size)
    valid, train = torch.from_numpy(order[:cut]), torch.from_numpy(order[cut:])
    if fixed:
        return (x[train], y[train], w[train]), (x[valid], y[valid], w[valid])
    return (x[train], y[train], None), (x[valid], y[valid], None)   # BUG: weights lost


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_test, y_test = rare_binary(seed=0)
    sample_weight = inverse_frequency(y.long(), 2)[y.long()]
    (xt, yt, wt), (xv, yv, wv) = split_off_validation(
        x, y, sample_weight, VALID_SIZE, fixed, np.random.default_rng(0))
    model = mlp(outputs=1)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    validation_losses = []
    with nd.watch(model, optimizer, **watch) as mon:
        for step, index in enumerate(index_batches(len(xt), steps, BATCH, seed=0)):
            weight = 1.0 if wt is None else wt[index]
            loss = (weight * F.binary_cross_entropy_with_logits(
                model(xt[index]).squeeze(-1), yt[index], reduction="none")).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
            if (step + 1) % VALIDATE_EVERY == 0:
                with torch.no_grad():
                    vweight = 1.0 if wv is None else wv
                    validation_losses.append(float((vweight * F.binary_cross_entropy_with_logits(
                        model(xv).squeeze(-1), yv, reduction="none")).mean()))
    model.eval()
    recall, f1, balanced = binary_scores(model, x_test, y_test)
    mon.held_out_recall, mon.held_out_f1, mon.held_out_balanced_accuracy = recall, f1, balanced
    mon.validation_losses = validation_losses
    return mon
