"""A RankNet scorer whose last layer is a ``Sigmoid``: every document's score is squashed
into (0, 1) before the pairwise loss takes score differences. RankNet's loss for a pair is
``-log sigmoid(s_i - s_j)``; with scores confined to (0, 1) a difference can never exceed 1,
so the loss of a correctly ordered pair cannot fall below ``log(1 + e^-1)`` (0.31) and the
gradient never fades on the pairs already right. Worse, the sigmoid's own slope shrinks the
gradient of every document whose score is near 0 or 1, which are exactly the best and
worst documents of a query: the scorer keeps pushing on pairs it cannot separate further
and learns the order of the top of each list slowly. Training runs, the loss falls and
then sits on its floor; nothing errors.

Reported: "redundant line" - https://github.com/yanshanjing/RankNet-Pytorch/issues/1 (a
RankNet in PyTorch whose scorer ``nn.Sequential`` ended in ``nn.Sigmoid()`` ahead of the
pairwise loss; the reporter asked whether the line was redundant, and the author agreed
and removed it). Fix: the scorer outputs a raw score (no final sigmoid).

Set-up here: synthetic queries of 20 documents with graded relevance 0-4
(benchmarks/real_bugs/_ranking.py), a small MLP scorer, RankNet over every ordered pair of
a query with different grades, Adam 1e-3, 16 queries a step.

Measured (held-out NDCG@10 on 200 queries; a random order scores about 0.41): seed 0,
0.82 for the bug against 0.90 for the fixed twin; seeds shifted by 1000, 0.90 against
0.95. The bug run's last loss sits near 0.6 (its floor) against the twin's 0.14-0.27.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._ranking import (held_out_ndcg, query_batches, queries, ranknet,
                                           scorer, split)

TITLE = "redundant line"
LINK = "https://github.com/yanshanjing/RankNet-Pytorch/issues/1"
EXPECTED = ("SQUASHED_LOGITS", "PAIRWISE_SCORES_SQUASHED")
STEPS = 300


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, held_out = split(queries(1000, seed=0))
    model = scorer()
    if not fixed:
        model = nn.Sequential(*model, nn.Sigmoid())    # BUG: scores squashed into (0, 1)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for batch in query_batches(len(train), steps):
            losses = []
            for i in batch:
                x, grades = train[i]
                losses.append(ranknet(model(x).squeeze(-1), grades))
            loss = torch.stack(losses).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_ndcg = held_out_ndcg(model, held_out)
    return mon
