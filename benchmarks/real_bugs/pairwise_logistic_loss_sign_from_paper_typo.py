"""A pairwise logistic ranking loss written from a formula missing its minus sign:
log(1 + exp(s_i - s_j)) for each pair where document i is more relevant than j, instead
of log(1 + exp(-(s_i - s_j))). The typo'd loss is smallest when the LESS relevant
document scores higher, so minimising it trains the scorer to rank every query in
reverse. It is a smooth, bounded-below loss that falls exactly like the right one;
nothing errors.

Reported: "Pairwise Logistic Loss (paper typo)" -
https://github.com/tensorflow/ranking/issues/23 (the TF-Ranking paper's equation 4 gave
the pairwise logistic loss as log(1 + exp(pairwise_logits)); the reporter pointed out
the missing negative sign, "otherwise a correct ranking would incur a large loss
penalty", and the authors confirmed the typo, to be fixed in the next version of the
paper; the library's code had the sign right). Here: an implementation from the paper's
equation, on synthetic queries of 20 documents with graded relevance
(benchmarks/real_bugs/_ranking.py), every ordered pair of a query with different grades,
an MLP scorer, Adam 1e-3, 16 queries a step. Fix: log(1 + exp(-(s_i - s_j))).

Measured (held-out NDCG@10 on 200 queries; a random order scores 0.41, the exact reverse
of the true order 0.03): seed 0, 0.064 for the bug against 0.90 for the fixed twin; seeds
shifted by 1000, 0.048 against 0.95.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._ranking import (held_out_ndcg, queries, query_batches, scorer,
                                           split)

TITLE = "Pairwise Logistic Loss (paper typo)"
LINK = "https://github.com/tensorflow/ranking/issues/23"
EXPECTED = ("RANKING_TARGET_REVERSED",)
STEPS = 300


def pairwise_logistic(scores, grades, fixed):
    diff = scores[:, None] - scores[None, :]        # s_i - s_j
    better = grades[:, None] > grades[None, :]      # pairs with i more relevant than j
    logits = diff[better]
    return F.softplus(-logits if fixed else logits).mean()   # BUG: the sign lost


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, held_out = split(queries(1000, seed=0))
    model = scorer()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for batch in query_batches(len(train), steps):
            loss = torch.stack([pairwise_logistic(model(x).squeeze(-1), g, fixed)
                                for x, g in (train[i] for i in batch)]).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_ndcg = held_out_ndcg(model, held_out)
    return mon
