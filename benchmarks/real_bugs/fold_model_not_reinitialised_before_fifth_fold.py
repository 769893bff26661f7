"""5-fold cross-validation whose network is built once: each fold starts from the weights
the previous folds trained, so by the fifth fold every one of its held-out rows has been a
training row in an earlier fold, and the fold's validation score - and the cross-validation
mean - measures memory, not generalisation.

Reported: "Your cross validation does not initialize each fold model, but uses the
previously trained model as the fold initialization model. Is this wrong?" -
https://github.com/McSpooder/camull-net/issues/6 (the k-fold loop of a PyTorch project
continues training one model from fold to fold). Here a digits MLP on 1000 rows (the other
797 never in any fold), Adam built per fold as such loops do; folds 1-4 train (not
watched) and fold 5 trains under watch with its held-out loss every 25 steps. Fix: build the
model inside the fold loop (or load its initial state_dict back before each fold).

Measured (fold 5's held-out accuracy / accuracy on the never-used rows): seed 0: bug 1.000
/ 0.971 (held-out loss 0.014 against 0.103 on unseen rows), fixed 0.975 / 0.957 (0.157 /
0.179); seeds + 1000: bug 0.995 / 0.975 (0.024 / 0.091), fixed 0.925 / 0.965 (0.241 /
0.163). The bug's model is a little better on unseen rows (it trained five times as long),
but its fold score overstates even that: the fold's loss is 7x and 4x below its loss on
rows it never saw; the fixed twin's fold score is an honest estimate.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._common import classification, mlp
from benchmarks.real_bugs._kfold_search import evaluate, kfold, train

TITLE = ("Your cross validation does not initialize each fold model, but uses the previously "
         "trained model as the fold initialization model. Is this wrong?")
LINK = "https://github.com/McSpooder/camull-net/issues/6"
EXPECTED = ("VALIDATION_ROWS_TRAINED_IN_EARLIER_RUN",)
STEPS = 200
FOLDS = 5
POOL = 1000
LR = 3e-3


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    order = torch.randperm(len(x))
    pool, unseen = order[:POOL], order[POOL:]
    model = mlp()                                  # BUG when not fixed: one for all folds
    for fold, (tr, val) in enumerate(kfold(POOL, FOLDS)):
        tr, val = pool[tr], pool[val]
        if fixed:
            model = mlp()
        optimizer = torch.optim.Adam(model.parameters(), lr=LR)
        if fold < FOLDS - 1:
            train(model, optimizer, x[tr], y[tr], steps)
    with nd.watch(model, optimizer, **watch) as mon:
        train(model, optimizer, x[tr], y[tr], steps, mon=mon, val=(x[val], y[val]))
    mon.fold_score = (evaluate(model, x[val], y[val]), evaluate(model, x[unseen], y[unseen]))
    return mon
