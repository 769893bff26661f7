"""Repeated random train/test splits (one per seed, scores averaged) with the network built
once before the seed loop: each split goes on training the weights the earlier splits left,
so most of a later split's test rows were training rows a split earlier, and the reported
test score climbs from seed to seed while the model is no better on rows it never saw.

Reported: "Model reset parameters" - https://github.com/havakv/pycox/issues/151 (a loop
``for seed in SEEDS`` re-splitting the data with ``train_test_split(..., random_state=seed)``
and fitting the same model: "For the first fold/split the result of c-index is always low
and then after couple of SEEDS the performance kept growing up ... the training model was not
re-initialized"). Here a digits MLP on a pool of 800 rows, re-split 75/25 per seed; splits 1
and 2 train (not watched), split 3 trains under watch with its test loss every 25 steps.
Another 997 rows are never in any split. Fix: build the network (and its optimizer) inside
the seed loop.

Measured (split 3's reported test accuracy / accuracy on the never-split rows):
seed 0: bug 0.995 / 0.956 (test loss 0.03 against 0.15 on unseen rows), fixed 0.945 /
0.950 (0.18 / 0.16) - the bug reports 0.04 more accuracy than its model has;
seeds + 1000: bug 0.990 / 0.970 (0.06 / 0.10), fixed 0.945 / 0.963 (0.16 / 0.14).
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._common import classification, mlp
from benchmarks.real_bugs._kfold_search import evaluate, train

TITLE = "Model reset parameters"
LINK = "https://github.com/havakv/pycox/issues/151"
EXPECTED = ("VALIDATION_ROWS_TRAINED_IN_EARLIER_RUN",)
STEPS = 200
SPLITS = 3
POOL = 800
LR = 0.1


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    order = torch.randperm(len(x))
    pool, unseen = order[:POOL], order[POOL:]
    model = mlp()                                  # BUG when not fixed: one for all seeds
    for split in range(SPLITS):
        shuffled = pool[torch.randperm(POOL)]      # train_test_split(random_state=seed)
        test, tr = shuffled[:POOL // 4], shuffled[POOL // 4:]
        if fixed:
            model = mlp()
        optimizer = torch.optim.SGD(model.parameters(), lr=LR, momentum=0.9)
        if split < SPLITS - 1:
            train(model, optimizer, x[tr], y[tr], steps)
    with nd.watch(model, optimizer, **watch) as mon:
        train(model, optimizer, x[tr], y[tr], steps, mon=mon, val=(x[test], y[test]))
    mon.fold_score = (evaluate(model, x[test], y[test]), evaluate(model, x[unseen], y[unseen]))
    return mon
