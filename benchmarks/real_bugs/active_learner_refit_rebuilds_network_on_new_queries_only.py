"""An active learner taught incrementally - each round's ``teach`` fits on the newly queried
rows only, the setting meant for neural networks, which keep their weights between fits -
while the estimator wrapper REBUILDS the network from its builder at every fit. Each round
then starts from fresh weights and sees nothing but the last query batch: the model that
scores the pool and the one evaluated at the end know 10 rows, not the 120 labelled. Every
fit converges (10 rows are easy to fit), the query batches arrive as planned, and the loss
curve looks like a healthy run restarted a few times.

Reported: "does the model re-created during learner.teach period?" -
https://github.com/modAL-python/modAL/issues/57 (with a Keras model wrapped for modAL by the
scikit-learn wrapper, the builder function ran again at every ``teach``: the wrapper's
``fit`` re-creates the model on each call, so training on the queried examples restarted
from scratch instead of continuing; the maintainer's answer: the wrapper reconstructs the
model by design, and the fix is a wrapper whose ``fit`` keeps the built model).
Here (_active_learning.py) the digits' pool, a 64-128-10 MLP, 20 random labels, 10 rounds
of 10 entropy queries, each fit 60 Adam steps on the rows just taught (``only_new``). Fix:
the network kept between fits (training continues on the new rows).

Measured (held-out accuracy after the last round, 120 labels bought): seed 0: 0.21 with the
bug against 0.66 for the fixed twin; seeds shifted by 1000: 0.23 against 0.76.
"""
import numpy as np
import torch

import nndebug as nd
from benchmarks.real_bugs._active_learning import (QUERY, ROUNDS, STEPS, Net, accuracy,
                                                   entropy, restart, split, train_round)

TITLE = "does the model re-created during learner.teach period?"
LINK = "https://github.com/modAL-python/modAL/issues/57"
EXPECTED = ("MODEL_REBUILT_EACH_FIT",)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    pool_x, pool_y, test_x, test_y, labelled = split(np.random.default_rng(0))
    model = Net()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    per_round = steps // (ROUNDS + 1)
    taught = list(labelled)                  # what this round's teach() passes (only_new)
    with nd.watch(model, optimizer, **watch) as mon:
        for round_ in range(ROUNDS + 1):
            if not fixed:
                restart(model, optimizer)    # BUG: the wrapper's fit rebuilds the network
            index = torch.tensor(taught)
            train_round(model, optimizer, pool_x[index], pool_y[index], mon, per_round)
            if round_ == ROUNDS:
                break
            unlabelled = torch.tensor(sorted(set(range(len(pool_x))) - set(labelled)))
            top = torch.argsort(entropy(model, pool_x[unlabelled]), descending=True)[:QUERY]
            taught = unlabelled[top].tolist()
            labelled += taught
    mon.held_out_accuracy = accuracy(model, test_x, test_y)
    mon.labelled_rows = len(labelled)
    return mon
