"""Pool-based active learning whose query takes the wrong end of its ranking: the rows are
sorted ascending by an informativeness score (high = worth labelling) and the FIRST n are
queried, so every round labels the rows the model is already surest about. The loop runs,
the labelled set grows by the planned batch each round and every retraining fits its
labels; only the choice is inverted, and the model is left with near-duplicates of what it
knows while the confusable digits stay unlabelled.

Reported: "Learning Loss for AL query wrong idxs" -
https://github.com/cure-lab/deep-active-learning/issues/3 (the Learning-Loss strategy ranks
the unlabelled rows by their predicted loss with an ascending argsort and returns
``arg[:n]``; the paper queries the rows with the HIGHEST predicted loss, so the strategy
returns the least informative points; the fix takes the last n, ``arg[-n:]``).
Here the score is the model's predictive entropy (the stand-in for the predicted loss: high
= informative in both), a 64-128-10 MLP on the digits (_active_learning.py): 20 random
labels, 10 rounds of 10 queries, each round retrained from scratch for 60 Adam steps. Fix:
the last n of the ascending ranking.

Measured (held-out accuracy after the last round, 120 labels): seed 0: 0.28 with the bug
against 0.83 for the fixed twin; seeds shifted by 1000: 0.46 against 0.85.
"""
import numpy as np
import torch

import nndebug as nd
from benchmarks.real_bugs._active_learning import (QUERY, ROUNDS, STEPS, Net, accuracy,
                                                   entropy, restart, split, train_round)

TITLE = "Learning Loss for AL query wrong idxs"
LINK = "https://github.com/cure-lab/deep-active-learning/issues/3"
EXPECTED = ("QUERY_SELECTS_LEAST_INFORMATIVE",)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    pool_x, pool_y, test_x, test_y, labelled = split(np.random.default_rng(0))
    model = Net()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    per_round = steps // (ROUNDS + 1)
    with nd.watch(model, optimizer, **watch) as mon:
        for round_ in range(ROUNDS + 1):
            restart(model, optimizer)
            index = torch.tensor(labelled)
            train_round(model, optimizer, pool_x[index], pool_y[index], mon, per_round)
            if round_ == ROUNDS:
                break
            unlabelled = torch.tensor(sorted(set(range(len(pool_x))) - set(labelled)))
            arg = torch.argsort(entropy(model, pool_x[unlabelled]))      # ascending
            if fixed:
                chosen = arg[-QUERY:]        # the most uncertain rows
            else:
                chosen = arg[:QUERY]         # BUG: the most confident rows
            labelled += unlabelled[chosen].tolist()
    mon.held_out_accuracy = accuracy(model, test_x, test_y)
    mon.labelled_rows = len(labelled)
    return mon
