"""A translational knowledge-graph model whose scorer for corrupted-TAIL negatives computes
``h - r - t`` where every other score (the true facts, the corrupted-head negatives, the
evaluation) computes ``h + r - t``. The model is asked to make ``||h + r - t||`` small on
true facts and ``||h - r - t'||`` large on their corrupted tails: the second is another
function, one the model can raise for every drawn tail without moving any wrong tail away
from ``h + r`` (half the negatives teach nothing about the ranking the model is used for).
The loss falls, nothing errors, and the tails it then ranks are worse.

Reported: "Score function in TransR(pytorch)" - https://github.com/awslabs/dgl-ke/issues/150
(in DGL-KE's PyTorch TransR score function, the negative-sampling branch for corrupted
heads scored ``head + relations - tail`` and the one for corrupted tails ``head -
relations - tail``; a maintainer confirmed it should be ``head + relations - tail`` and it
was labelled a bug and fixed; the reporter's FB15k numbers after the fix came out lower,
which the maintainer put down to hyper-parameters tuned on the buggy code). Here the same
slip on TransE (L1 distance, unit-norm entities, DGL-KE's logsigmoid loss on ``gamma -
distance`` with gamma 8, 8 corrupted heads or tails per fact) on the small translational
knowledge graph of batch 125 (benchmarks/real_bugs/_link_prediction.py: 300 entities, 6
relations, 15% of the facts held out). Fix: score the corrupted tails as ``h + r - t``.

Measured (300 Adam steps at 1e-2, batch 128; filtered tail ranking of the 432 held-out facts
among all 300 entities), MRR / hits@10: seed 0 0.101 / 0.257 for the bug against 0.136 /
0.345 for the fixed twin; seeds shifted by 1000: 0.077 / 0.197 against 0.106 / 0.308.
Gamma matters: at 4 (below a random pair's L1 distance, ~6.4 on unit 32-d vectors, so the
corrupted triples already score below the threshold and their term hardly acts) the bug
did no harm here (hits@10 0.475 against 0.479); at 8, where the negatives' term is
active, it does.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._kge import corrupt_k
from benchmarks.real_bugs._link_prediction import (TransE, knowledge_graph, tail_ranking,
                                                   triple_batches)

TITLE = "Score function in TransR(pytorch)"
LINK = "https://github.com/awslabs/dgl-ke/issues/150"
EXPECTED = ("NEGATIVES_SCORED_BY_OTHER_FUNCTION",)
STEPS = 300
NEGATIVES = 8
GAMMA = 8.0     # about a random pair's L1 distance on unit 32-d vectors (~6.4): negatives active


def negative_distances(model, negative, tail_side, fixed):
    e = model.entities()
    h, r, t = e[negative[:, 0]], model.relation(negative[:, 1]), e[negative[:, 2]]
    head_branch = (h + r - t).abs().sum(1)
    if fixed:
        tail_branch = (h + r - t).abs().sum(1)
    else:
        tail_branch = (h - r - t).abs().sum(1)      # BUG: relation subtracted on this side
    return torch.where(tail_side, tail_branch, head_branch)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, test, known = knowledge_graph(seed=0)
    model = TransE()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in triple_batches(train, steps, seed=0):
            positive = train[index]
            negative, tail_side = corrupt_k(positive, NEGATIVES)
            optimizer.zero_grad()
            positive_score = GAMMA - model(positive)
            negative_score = GAMMA - negative_distances(model, negative, tail_side, fixed)
            loss = -F.logsigmoid(positive_score).mean() - F.logsigmoid(-negative_score).mean()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_ranking = tail_ranking(model.all_tail_scores, test, known)
    return mon
