"""A listwise ranker whose training rows are reshuffled AFTER the query group sizes were
taken from them. The table is built sorted by query and the group sizes (each query's
row count) are computed from it; then the rows are shuffled for training (a repartition,
a shuffling loader) and the lists are cut again as consecutive runs of those sizes. Every
"list" now holds documents of many different queries, whose grades only ever compared
documents of one query with each other; the listwise loss asks the scorer to put the
highest-graded row of each mixed list first, which across queries says little about the
scoring function. The loss falls a little, nothing errors, and the scorer learns a
fraction of what the same data teaches when each list is one query.

Reported: "[jvm-packages] Spark repartitionForData can potentially shuffle all data and
lose ordering required for ranking objectives" - https://github.com/dmlc/xgboost/issues/3489
(XGBoost4J-Spark reads a ranking group as consecutive rows of a partition, but repartitioned
the training data to the number of workers with a full shuffle after the groups were laid
out, so the groups no longer held one query each; the workaround was to avoid the
repartition, and the fix, dmlc/xgboost#3654, groups the rows into whole queries before any
repartitioning or splitting). Here: synthetic queries of 20 documents with graded
relevance (benchmarks/real_bugs/_ranking.py) laid out as one table sorted by query, the
group sizes taken from it; each epoch the rows are shuffled (bug) or the queries are
shuffled as whole blocks (fix) and the lists are cut by the group sizes; a small MLP
scorer, the listwise softmax loss with gain-proportional targets (2^grade - 1), Adam 1e-3,
16 lists a step.

Measured (held-out NDCG@10 on 200 queries; a random order scores about 0.41): seed 0,
0.71 for the bug against 0.90 for the fixed twin; seeds shifted by 1000, 0.71
against 0.95. Watch's only word on the bug run is LOSS_PLATEAU (the mixed lists' loss
hardly falls); the twin's loss falls and it is silent.
"""
import numpy as np
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._ranking import held_out_ndcg, queries, scorer, split

TITLE = ("[jvm-packages] Spark repartitionForData can potentially shuffle all data and lose "
         "ordering required for ranking objectives")
LINK = "https://github.com/dmlc/xgboost/issues/3489"
EXPECTED = ("QUERY_GROUPS_MISALIGNED",)
STEPS = 300
LISTS_PER_STEP = 16


def softmax_loss(scores, gains):
    """The listwise softmax loss of one list, targets in proportion to the gains (a list
    with no gain contributes 0)."""
    total = gains.sum()
    if total == 0:
        return scores.sum() * 0.0
    return -(gains / total * F.log_softmax(scores, dim=-1)).sum()


def epoch_lists(x, grade, sizes, starts, rng, fixed):
    """The lists of one epoch: rows reordered, then cut into runs of the group sizes."""
    if fixed:       # whole queries shuffled as blocks: every run is one query
        blocks = rng.permutation(len(sizes))
        order = np.concatenate([np.arange(starts[q], starts[q] + sizes[q]) for q in blocks])
        cut = sizes[blocks]
    else:           # BUG: rows shuffled after the group sizes were taken
        order = rng.permutation(len(x))
        cut = sizes
    bounds = np.concatenate([[0], np.cumsum(cut)])
    idx = torch.from_numpy(order)
    return [(x[idx[a:b]], grade[idx[a:b]]) for a, b in zip(bounds[:-1], bounds[1:])]


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(1)
    train, held_out = split(queries(1000, seed=0))
    x = torch.cat([q[0] for q in train])                 # the table, sorted by query
    grade = torch.cat([q[1] for q in train])
    sizes = np.array([len(q[1]) for q in train])         # group sizes taken here
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    model = scorer()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    lists = []
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            if len(lists) < LISTS_PER_STEP:
                lists = epoch_lists(x, grade, sizes, starts, rng, fixed)
            batch, lists = lists[:LISTS_PER_STEP], lists[LISTS_PER_STEP:]
            loss = torch.stack([softmax_loss(model(xl).squeeze(-1), 2 ** gl - 1)
                                for xl, gl in batch]).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_ndcg = held_out_ndcg(model, held_out)
    return mon
