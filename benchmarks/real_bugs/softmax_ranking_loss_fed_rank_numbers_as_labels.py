"""A listwise softmax ranking loss trained on labels that are each document's rank NUMBER in
its list (1 = the best, n = the worst) where the loss reads graded RELEVANCE (bigger =
better). The softmax loss turns a list's labels into a target distribution in proportion to
the labels (``label / sum(labels)``) and asks the scores' softmax to match it: fed rank
numbers, the WORST document gets the largest share of the target and the best one the
smallest. The loss falls as it would with the right labels, no value is out of range (every
rank number is a valid non-negative relevance), and the scorer learns every query upside
down.

Reported: "Most of the TFR Losses are always zero" -
https://github.com/tensorflow/ranking/issues/363 (a TF-Ranking user learning to reproduce
an online service's ranking gave TF-Ranking's losses "the numeric ranks (positive whole
numbers > 0, 1 - 500 usually)" as labels, where those losses read a label as a relevance
grade, bigger meaning better; the listed symptom is losses that stay at zero, and the
issue has no maintainer answer. What this case reproduces is the labelling the report
describes: rank numbers where relevance is read. The labels have to be turned into
relevance first, e.g. ``n + 1 - rank``.) Here: synthetic queries of 20
documents with graded relevance (benchmarks/real_bugs/_ranking.py); the training label is
each document's rank number in its query's true order (ties broken at random), a small
MLP scorer, the softmax (ListNet top-one) loss with label-proportional targets, Adam
1e-3, 16 queries a step. Fix: the label ``n + 1 - rank``.

Measured (held-out NDCG@10 on 200 queries of graded relevance; a random order scores
about 0.41, the exact reverse of the true order 0.03): seed 0, 0.07 for the bug against
0.90 for the fixed twin; seeds shifted by 1000, 0.05 against 0.95. The two runs' last
losses are the same (2.90): the bug fits its reversed target as well as the twin fits the
right one.
"""
import numpy as np
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._ranking import held_out_ndcg, query_batches, queries, scorer, split

TITLE = "Most of the TFR Losses are always zero"
LINK = "https://github.com/tensorflow/ranking/issues/363"
EXPECTED = ("RANKING_TARGET_REVERSED",)
STEPS = 300


def rank_numbers(grades, rng):
    """Each document's rank number (1 = best) in its query's true order, ties at random."""
    order = np.lexsort((rng.random(len(grades)), -grades.numpy()))
    ranks = torch.empty(len(grades))
    ranks[torch.from_numpy(order)] = torch.arange(1, len(grades) + 1, dtype=torch.float32)
    return ranks


def softmax_loss(scores, labels):
    """The listwise softmax loss: cross-entropy of the scores' softmax against the labels
    normalised to sum to one."""
    target = labels / labels.sum()
    return -(target * F.log_softmax(scores, dim=-1)).sum()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(1)
    train, held_out = split(queries(1000, seed=0))
    ranks = [rank_numbers(g, rng) for _, g in train]
    model = scorer()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for batch in query_batches(len(train), steps):
            losses = []
            for i in batch:
                x, _ = train[i]
                label = len(x) + 1 - ranks[i] if fixed else ranks[i]    # BUG: rank numbers
                losses.append(softmax_loss(model(x).squeeze(-1), label))
            loss = torch.stack(losses).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_ndcg = held_out_ndcg(model, held_out)
    return mon
