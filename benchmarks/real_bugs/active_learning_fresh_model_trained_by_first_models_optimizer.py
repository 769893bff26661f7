"""Active learning that retrains from scratch by building a NEW classifier each round, while
the optimizer was built once, for the first classifier's parameters, and is reused. From the
second round on ``optimizer.step()`` updates tensors no model uses any more: the fresh
classifier the loop trains, queries with and evaluates keeps its random initial weights. The
loop raises nothing - backward fills the new classifier's gradients, the optimizer steps
without complaint - and the training loss just stays at chance level while the labelled set
grows as planned; the queries then rank the pool by an untrained model's entropy.

Reported: "Refactor optimizer initialization in active learning strategies" -
https://github.com/DeepTrackAI/deeplay/pull/125 (deeplay's active-learning strategies took
their optimizer as a default argument, ``optimizer=Adam(lr=1e-3)`` - one object created when
the signature is read and shared by every strategy built - so the strategies reused the same
optimizer across initializations; the fix creates the optimizer per strategy).
Here (_active_learning.py) the digits' pool, a 64-128-10 MLP held by a small learner module
(``learner.net``), 20 random labels, 10 rounds of 10 entropy queries, each round a newly
built network trained for 60 Adam steps. Fix: an optimizer built for each new network.

Measured (held-out accuracy after the last round, 120 labels): seed 0: 0.06 with the bug
(the last network never updated) against 0.78 for the fixed twin; seeds shifted by 1000:
0.10 against 0.78. (EXPECTED names the checklist's OPTIMIZER_MISSING_PARAMS - the optimizer
does not hold the parameters the loop trains; first scored under a new code,
PARAMS_NOT_IN_OPTIMIZER, with the same verdict.)
"""
import numpy as np
import torch

import nndebug as nd
from benchmarks.real_bugs._active_learning import (QUERY, ROUNDS, STEPS, Net, accuracy,
                                                   entropy, split, train_round)

TITLE = "Refactor optimizer initialization in active learning strategies"
LINK = "https://github.com/DeepTrackAI/deeplay/pull/125"
EXPECTED = ("OPTIMIZER_MISSING_PARAMS",)
LR = 3e-3


class Learner(torch.nn.Module):
    """What the loop trains: whichever network ``net`` holds this round."""

    def __init__(self):
        super().__init__()
        self.net = Net()

    def forward(self, x):
        return self.net(x)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    pool_x, pool_y, test_x, test_y, labelled = split(np.random.default_rng(0))
    learner = Learner()
    optimizer = torch.optim.Adam(learner.parameters(), lr=LR)    # built once, round 0's net
    per_round = steps // (ROUNDS + 1)
    with nd.watch(learner, optimizer, **watch) as mon:
        for round_ in range(ROUNDS + 1):
            if round_ > 0:
                learner.net = Net()                  # retrain from scratch: a new network
                if fixed:                            # ... with an optimizer for it
                    optimizer.param_groups.clear()
                    optimizer.state.clear()
                    optimizer.add_param_group({"params": list(learner.parameters())})
                # BUG: otherwise the optimizer still holds round 0's parameters
            index = torch.tensor(labelled)
            train_round(learner, optimizer, pool_x[index], pool_y[index], mon, per_round)
            if round_ == ROUNDS:
                break
            unlabelled = torch.tensor(sorted(set(range(len(pool_x))) - set(labelled)))
            top = torch.argsort(entropy(learner, pool_x[unlabelled]), descending=True)[:QUERY]
            labelled += unlabelled[top].tolist()
    mon.held_out_accuracy = accuracy(learner, test_x, test_y)
    return mon
