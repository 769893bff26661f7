"""Class weights in ``CrossEntropyLoss(weight=w)`` with one sample per step. The default
``reduction='mean'`` divides the weighted sum by the sum of the weights of the batch's
targets - for a batch of one, ``w[y] * loss / w[y]``: the weight cancels exactly and every
sample counts the same, whatever ``w`` says. The class weights are built, passed, and have
no effect at all; the run is the unweighted one, and the rare classes stay under-predicted.

Reported: "The computation of weighted CrossEntropyLoss is not reasonable" -
https://github.com/pytorch/pytorch/issues/50528 (the weighted mean's denominator is the
batch's own weight sum, so ``reduction='mean'`` and ``'none'`` then ``.mean()`` disagree,
"and most importantly, if batch_size=1, the weight argument does not work"; the
weighted mean is still the one PyTorch documents; the workaround is ``reduction='none'``
(or ``'sum'``) and averaging over the batch size yourself). Here: the long-tailed digits
(benchmarks/real_bugs/_imb186.py: digits 0-4 with about 125 training rows each, 5-9 with
4), an MLP, plain SGD (rate 0.01), one sample per step, w = inverse class frequency. Fix:
``reduction='none'`` and the mean over the batch (for one sample, ``w[y] * loss``).

Measured (3,000 steps; balanced accuracy, the mean recall of the ten digits, on 535
held-out digits at their natural shares, and the mean recall of the rare digits 5-9):
seed 0, balanced accuracy 0.49 for the bug against 0.82 for the fixed twin (rare digits
0.00 against 0.70); seeds shifted by 1000, 0.49 against 0.78 (rare 0.00 against 0.61).
"""
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._common import index_batches, mlp
from benchmarks.real_bugs._imb186 import balanced_accuracy, inverse_frequency, long_tail

TITLE = "The computation of weighted CrossEntropyLoss is not reasonable"
LINK = "https://github.com/pytorch/pytorch/issues/50528"
EXPECTED = ("CLASS_WEIGHTS_CANCELLED_BY_MEAN",)
STEPS = 3000
BATCH = 1


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_test, y_test = long_tail(seed=0)
    weights = inverse_frequency(y, 10)
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(x), steps, BATCH, seed=0):
            logits = model(x[index])
            if fixed:
                loss = F.cross_entropy(logits, y[index], weight=weights,
                                       reduction="none").mean()
            else:            # BUG: the weighted mean divides by w[y] again at batch size 1
                loss = F.cross_entropy(logits, y[index], weight=weights)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    mon.held_out_balanced_accuracy = balanced_accuracy(model, x_test, y_test)
    mon.held_out_rare_recall = balanced_accuracy(model, x_test, y_test, among=range(5, 10))
    return mon
