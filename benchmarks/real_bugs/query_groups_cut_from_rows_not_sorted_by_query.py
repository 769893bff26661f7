"""A pairwise ranker whose query groups are cut from a flat table of (query id, features,
label) rows by group SIZES, while the rows are not sorted by query id. The group sizes
(the count of each query's rows) are right, but cutting consecutive runs of rows by them
assumes each query's rows are contiguous: with the table in the order it was exported,
every "group" holds documents of many queries. Each query's labels grade its documents
against each other only, so the RankNet pairs formed inside such a group compare
documents whose labels come from different queries, and most of them say nothing, or the
opposite of the truth, about the scoring function. The loss is an ordinary RankNet loss
that falls a little, nothing errors, and the scorer learns a fraction of what it could.

Reported: "fix issue with ndcg mismatch in booster and eval" -
https://github.com/metarank/metarank/pull/940 (metarank's LambdaMART training handed its
boosters the query groups as sizes over rows that were not sorted by query id, "resulting
in a sub-optimal training on all the boosters when dataset was not sorted by query-id -
which is like almost always"; fixed by sorting the rows by query before the group sizes
are taken; XGBoost and LightGBM both read a group as consecutive rows). Here: synthetic
queries of 20 documents with graded relevance (benchmarks/real_bugs/_ranking.py) written
to one table in a shuffled row order, groups cut by each query's row count, RankNet over
every ordered pair of a group, an MLP scorer, Adam 1e-3, 16 groups a step. Fix: a stable
sort of the rows by query id before the groups are cut.

Measured (held-out NDCG@10 on 200 queries, 0.41 for a random order): seed 0, 0.71 for the
bug against 0.90 for the fixed twin; seeds shifted by 1000, 0.72 against 0.95.
"""
import numpy as np
import torch

import nndebug as nd
from benchmarks.real_bugs._ranking import (held_out_ndcg, queries, query_batches, ranknet,
                                           scorer, split)

TITLE = "fix issue with ndcg mismatch in booster and eval"
LINK = "https://github.com/metarank/metarank/pull/940"
EXPECTED = ("QUERY_GROUPS_MISALIGNED",)
STEPS = 300


def groups_of(table, fixed):
    """Cut (features, labels) groups from the table by each query's row count."""
    qid, x, grades = table
    if fixed:                                   # the rows of each query made contiguous
        order = torch.from_numpy(np.argsort(qid, kind="stable"))
        qid, x, grades = qid[order.numpy()], x[order], grades[order]
    _, sizes = np.unique(qid, return_counts=True)
    bounds = np.concatenate([[0], np.cumsum(sizes)])
    # BUG (unsorted rows): consecutive runs of rows taken as one query's documents
    return [(x[a:b], grades[a:b]) for a, b in zip(bounds[:-1], bounds[1:])]


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(1)
    train, held_out = split(queries(1000, seed=0))
    qid = np.concatenate([np.full(len(x), q) for q, (x, _) in enumerate(train)])
    rows = torch.from_numpy(rng.permutation(len(qid)))     # the table's exported order
    table = (qid[rows.numpy()], torch.cat([x for x, _ in train])[rows],
             torch.cat([g for _, g in train])[rows])
    groups = groups_of(table, fixed)
    model = scorer()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for batch in query_batches(len(groups), steps):
            loss = torch.stack([ranknet(model(x).squeeze(-1), g)
                                for x, g in (groups[i] for i in batch)]).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_ndcg = held_out_ndcg(model, held_out)
    return mon
