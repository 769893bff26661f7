"""Pool-based active learning that labels the queried rows with the wrong labels: the
acquisition ranks the UNLABELLED pool and returns positions within it, the loop adds the
right rows (the pool's own mapping of those positions) but fetches their labels by using the
same positions as indices into the FULL dataset. Every queried row joins the labelled set
with the label of some other row - almost always a wrong class - and trains on it without a
complaint: shapes, dtypes and counts are all right, the loss falls, and the model learns the
mislabelled rows alongside the 20 true ones.

Reported: "Repetition of data in different samples while trying the example in production
Part of documentation" - https://github.com/baal-org/baal/issues/200 (the documentation's
production loop looked up each label as ``train_dataset.files[idx]`` for ``idx`` in the
indices the uncertainty ranking returned, which are positions in the pool, not in the
dataset; the maintainer confirmed the labels came from the wrong files and the fix maps them
back to dataset indices first, ``_pool_to_oracle_index(top_uncertainty)``, while ``label()``
still takes the pool positions).
Here (_active_learning.py) the digits' pool of 1,300 rows, a 64-128-10 MLP, 20 random
labels, 10 rounds of 10 entropy queries, each retrained from scratch for 60 Adam steps; the
oracle is the pool's label column. Fix: the label of the queried row, looked up through the
unlabelled rows' dataset indices.

Measured (held-out accuracy after the last round, 120 labels): seed 0: 0.32 with the bug
(84 of the 100 queried rows carry a wrong label) against 0.80 for the fixed twin; seeds
shifted by 1000: 0.36 (89 wrong) against 0.84.
"""
import numpy as np
import torch

import nndebug as nd
from benchmarks.real_bugs._active_learning import (QUERY, ROUNDS, STEPS, Net, accuracy,
                                                   entropy, restart, split, train_round)

TITLE = ("Repetition of data in different samples while trying the example in production "
         "Part of documentation")
LINK = "https://github.com/baal-org/baal/issues/200"
EXPECTED = ("QUERIED_LABELS_FROM_WRONG_ROWS",)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    pool_x, pool_y, test_x, test_y, labelled = split(np.random.default_rng(0))
    labels = {i: int(pool_y[i]) for i in labelled}          # dataset index -> oracle label
    model = Net()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    per_round = steps // (ROUNDS + 1)
    with nd.watch(model, optimizer, **watch) as mon:
        for round_ in range(ROUNDS + 1):
            restart(model, optimizer)
            index = torch.tensor(list(labels))
            targets = torch.tensor([labels[i] for i in index.tolist()])
            train_round(model, optimizer, pool_x[index], targets, mon, per_round)
            if round_ == ROUNDS:
                break
            unlabelled = torch.tensor(sorted(set(range(len(pool_x))) - set(labels)))
            top = torch.argsort(entropy(model, pool_x[unlabelled]), descending=True)[:QUERY]
            for position, row in zip(top.tolist(), unlabelled[top].tolist()):
                if fixed:
                    labels[row] = int(pool_y[row])        # the queried row's own label
                else:
                    labels[row] = int(pool_y[position])   # BUG: pool position as dataset index
    mon.held_out_accuracy = accuracy(model, test_x, test_y)
    mon.wrong_labels = sum(int(pool_y[i]) != c for i, c in labels.items())
    return mon
