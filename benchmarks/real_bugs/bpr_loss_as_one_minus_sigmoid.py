"""BPR written as ``1 - sigmoid(positive - negative)`` instead of
``-log sigmoid(positive - negative)``. Bayesian personalised ranking maximises the
log-likelihood that a user's observed item scores above an item the user never touched;
without the log the loss is one minus a probability, bounded in [0, 1], and its gradient
sigmoid'(d) vanishes at both ends: the pairs the model ranks most wrongly (an observed item
far below an unobserved one) are the ones it stops correcting, while pairs already right
keep a small pull. The loss falls smoothly and the run looks healthy.

Reported: "Error in BPR loss function" - https://github.com/maciejkula/spotlight/issues/185
(spotlight's ``bpr_loss`` returned ``1.0 - torch.sigmoid(positive_predictions -
negative_predictions)``; the reporter points out the BPR paper's criterion is
``log(sigmoid(positive - negative))`` plus regularisation and asks whether the
library's form is right).
Here a dot-product matrix factorisation (16 wide, N(0, 1) embeddings as nn.Embedding
leaves them) on synthetic implicit feedback (200 users, 60 items, each user's 12
favourite items under a low-rank taste plus noise, one held out), one sampled unobserved
item per (user, observed item) triple, batches of 256, Adam 0.01, 300 steps. Fix:
``-F.logsigmoid(positive - negative).mean()``.

Measured (hit rate at 10: share of users whose held-out item ranks in the top 10 of the
49 items they did not interact with in training): seed 0: 0.400 with the bug, 0.455
fixed; seeds shifted by 1000: 0.340 against 0.415.
"""
import numpy as np
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._ncf import DotMF, hit_rate, implicit_feedback, triple_sampler

TITLE = "Error in BPR loss function"
LINK = "https://github.com/maciejkula/spotlight/issues/185"
EXPECTED = ("NLL_ON_PROBABILITIES",)
USERS, ITEMS, BATCH = 200, 60, 256
STEPS = 300


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    np.random.seed(0)
    positives, held_out = implicit_feedback(np.random.default_rng(0), USERS, ITEMS)
    batch = triple_sampler(positives, ITEMS)
    model = DotMF(USERS, ITEMS, dim=16, std=1.0)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            users, pos, neg = batch(BATCH)
            difference = model(users, pos) - model(users, neg)
            if fixed:
                loss = -F.logsigmoid(difference).mean()
            else:
                loss = (1.0 - torch.sigmoid(difference)).mean()     # BUG: no log
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.hit_rate_at_10 = hit_rate(lambda: model.user.weight @ model.item.weight.T,
                                  positives, held_out)
    return mon
