"""A listwise ranker trained with ListMLE on labels that are each document's rank POSITION
(1 = the best document of its query) where the loss reads RELEVANCE (bigger = better).
ListMLE sorts a list by its labels, highest first, and maximises the Plackett-Luce
likelihood of that order: fed positions, it is told that the worst document (position n)
should come first and the best one last. The loss falls as it would with the right labels
(it is the same likelihood of a permutation, the reversed one), nothing errors, and the
scorer learns to rank every query upside down.

Reported: "Question regarding inferring the rank given model scores" -
https://github.com/allegro/allRank/issues/26 (the reporter trained allRank's ListMLE and
found that sorting the scores in ASCENDING order gave sensible rankings while descending
did not; the cause, found in the thread, was that the losses take (scores, relevance)
while the data held rank labels, which run the opposite way. The fix is to turn ranks
into relevance first, e.g. reverse them, n + 1 - rank). Here: synthetic queries of 20
documents each with graded relevance (benchmarks/real_bugs/_ranking.py); the training
labels are each document's position in its query's true order (ties broken at random),
an MLP scorer, ListMLE, Adam 1e-3, 16 queries a step. Fix: the label n + 1 - position.

Measured (held-out NDCG@10 on 200 queries of graded relevance; a random order scores
0.41, the exact reverse of the true order 0.03): seed 0, 0.065 for the bug against 0.90
for the fixed twin; seeds shifted by 1000, 0.047 against 0.95. The bug run's last losses
are as low as the twin's (it fits the reversed permutation as well as the twin fits the
right one).
"""
import numpy as np
import torch

import nndebug as nd
from benchmarks.real_bugs._ranking import (held_out_ndcg, listmle, queries, query_batches,
                                           scorer, split)

TITLE = "Question regarding inferring the rank given model scores"
LINK = "https://github.com/allegro/allRank/issues/26"
EXPECTED = ("RANKING_TARGET_REVERSED",)
STEPS = 300


def rank_positions(grades, rng):
    """Each document's position (1 = best) in its query's true order, ties at random."""
    order = np.lexsort((rng.random(len(grades)), -grades.numpy()))
    positions = torch.empty(len(grades))
    positions[torch.from_numpy(order)] = torch.arange(1, len(grades) + 1, dtype=torch.float32)
    return positions


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(1)
    train, held_out = split(queries(1000, seed=0))
    positions = [rank_positions(g, rng) for _, g in train]
    model = scorer()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for batch in query_batches(len(train), steps):
            lists = []
            for i in batch:
                x, _ = train[i]
                label = len(x) + 1 - positions[i] if fixed else positions[i]  # BUG: ranks
                lists.append(model(x).squeeze(-1)[torch.argsort(label, descending=True)])
            loss = listmle(torch.stack(lists))      # the order the labels rank highest first
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_ndcg = held_out_ndcg(model, held_out)
    return mon
