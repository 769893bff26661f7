"""A weighted cross-entropy written by hand multiplies the logits by the class weights
BEFORE the softmax (``softmax_cross_entropy(logits * class_weights, labels)``), instead of
weighting each row's loss by its label's weight. Scaling a class's logit is not weighting
its loss: the rare classes' logits are merely stretched (the last layer can undo it), no
row counts more than another, and the classifier learns the training set's imbalance as
if no weights had been given.

Reported: "Weights before softmax error in the weighted loss function" -
https://github.com/jakeret/tf_unet/issues/8 ("the weights are applied to the logits
before the softmax activation function ... To ensure correct scaling, the weights should
be applied after the call to softmax_cross_entropy_with_logits() and before the call to
reduce_mean()"; the author: "My intension ... was, in case of class in-balance, to dampen
the activations of a dominant class and amplify the others"; later fixed). Here, scaled
down, a digits MLP whose training set keeps 8% of the rows of digits 5-9 (about 1:12),
inverse-frequency class weights, Adam. Fix: ``cross_entropy(logits, labels,
weight=class_weights)``.

Measured (300 steps, batch 64, 500 balanced held-out digits; balanced accuracy): seed 0,
0.443 for the bug against 0.852 for the fixed twin; seeds shifted by 1000, 0.466 against
0.850.
"""
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches, mlp
from benchmarks.real_bugs._custom_losses import (balanced_accuracy, imbalanced_digits,
                                                 inverse_frequency)

TITLE = "Weights before softmax error in the weighted loss function"
LINK = "https://github.com/jakeret/tf_unet/issues/8"
EXPECTED = ("RARE_CLASS_NEVER_PREDICTED",)
STEPS = 300


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, held_x, held_y = imbalanced_digits(seed=0)
    class_weights = inverse_frequency(y, 10)
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            logits = model(xb)
            if fixed:
                loss = F.cross_entropy(logits, yb, weight=class_weights)
            else:
                loss = F.cross_entropy(logits * class_weights, yb)   # BUG: weights on logits
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        mon.held_out_balanced_accuracy = balanced_accuracy(model(held_x).argmax(1), held_y, 10)
    return mon
