"""A BPR loss whose log-likelihood is averaged over the batch and then divided by the
number of pairs again, while its L2 regularisation is divided once. The ranking term ends
up ``n_pairs`` times smaller than intended against the penalty on the embeddings, so the
regularisation - meant as a light touch - dominates: every
user and item vector is pulled towards zero far harder than the pairs pull them apart,
and the scores flatten towards popularity alone. With Adam the overall scale of the loss
would not matter; the balance between its two terms does. The loss falls and prints
like any other.

Reported: "LightGCN bug fix #7196" - https://github.com/pyg-team/pytorch_geometric/pull/7384
(PyG's ``BPRLoss.forward``: "log_prob is divided by n_pairs twice"; the pull request
changes the return to ``-log_prob + regularization / n_pairs``, with ``log_prob`` the
mean of ``logsigmoid(positives - negatives)``).
Here a dot-product matrix factorisation (16 wide) on synthetic implicit feedback (200
users, 60 items, each user's 12 favourite items under a low-rank taste plus noise, one
held out), one sampled unobserved item per (user, observed item) triple, batches of 256,
the squared L2 norm of the batch's user, positive and negative vectors times lambda = 1e-2,
divided by the number of pairs (at PyG's lambda = 1e-4 the penalty is too small at this
scale for the imbalance to matter: hit rate 0.905 against 0.895), Adam 0.01, 300 steps.
Fix: the mean log-likelihood not divided again.

Measured (hit rate at 10: share of users whose held-out item ranks in the top 10 of the
49 items they did not interact with in training): seed 0: 0.245 with the bug, 0.905
fixed; seeds shifted by 1000: 0.125 against 0.935.
"""
import numpy as np
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._ncf import DotMF, hit_rate, implicit_feedback, triple_sampler

TITLE = "LightGCN bug fix #7196: log_prob is divided by n_pairs twice"
LINK = "https://github.com/pyg-team/pytorch_geometric/pull/7384"
EXPECTED = ("LOSS_DIVIDED_BY_BATCH_SIZE",)
USERS, ITEMS, BATCH = 200, 60, 256
LAMBDA = 1e-2
STEPS = 300


def bpr_loss(positives, negatives, parameters, fixed):
    n_pairs = positives.size(0)
    log_prob = F.logsigmoid(positives - negatives).mean()
    regularization = LAMBDA * parameters.norm(p=2).pow(2)
    if fixed:
        return -log_prob + regularization / n_pairs
    return (-log_prob + regularization) / n_pairs        # BUG: the mean divided again


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    np.random.seed(0)
    positives, held_out = implicit_feedback(np.random.default_rng(0), USERS, ITEMS)
    batch = triple_sampler(positives, ITEMS)
    model = DotMF(USERS, ITEMS, dim=16, std=0.1)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            users, pos, neg = batch(BATCH)
            u, p, n = model.user(users), model.item(pos), model.item(neg)
            loss = bpr_loss((u * p).sum(-1), (u * n).sum(-1), torch.cat([u, p, n]), fixed)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.hit_rate_at_10 = hit_rate(lambda: model.user.weight @ model.item.weight.T,
                                  positives, held_out)
    return mon
