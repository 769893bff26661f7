"""ListMLE written to take each list already sorted by relevance, best first, and so never
reading the labels, fed lists in the order the data came in. The loss is the
Plackett-Luce likelihood of the INPUT order: with documents in an arbitrary order it asks
the scorer to reproduce that arbitrary order, which carries nothing about relevance. The
loss is a smooth, ordinary-looking likelihood that falls a little (the scorer learns
whatever it can of the order), nothing errors, and the ranking it learns is near chance.

Reported: "Bug in ListMLE?" - https://github.com/wildltr/ptranking/issues/4 (the reporter
noticed that PT-Ranking's ListMLE takes ``batch_stds``, the labels, and never uses them:
the loss is log-cumsum-exp of the predictions minus the predictions in list order; the
maintainer answered that the library pre-sorts each query's documents by label in
decreasing order, so the loss relies on that; a list not sorted that way trains on
nothing. The fix: sort each list by its labels, highest first, before the loss). Here:
synthetic queries of 20 documents with graded relevance (benchmarks/real_bugs/_ranking.py),
each training list in a random order as a data loader hands it over, an MLP scorer,
Adam 1e-3, 16 queries a step. Fix: sort the scores by the labels (descending) first.

Measured (held-out NDCG@10 on 200 queries, 0.41 for a random order): seed 0, 0.45 for the
bug against 0.90 for the fixed twin; seeds shifted by 1000, 0.52 against 0.95.
"""
import numpy as np
import torch

import nndebug as nd
from benchmarks.real_bugs._ranking import (held_out_ndcg, listmle, queries, query_batches,
                                           scorer, split)

TITLE = "Bug in ListMLE?"
LINK = "https://github.com/wildltr/ptranking/issues/4"
EXPECTED = ("LISTWISE_LOSS_IGNORES_LABELS",)
STEPS = 300


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(1)
    train, held_out = split(queries(1000, seed=0))
    model = scorer()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for batch in query_batches(len(train), steps):
            lists = []
            for i in batch:
                x, grades = train[i]
                shuffle = torch.from_numpy(rng.permutation(len(x)))    # the loader's order
                x, grades = x[shuffle], grades[shuffle]
                scores = model(x).squeeze(-1)
                if fixed:                    # best first, as the loss assumes
                    scores = scores[torch.argsort(grades, descending=True, stable=True)]
                lists.append(scores)         # BUG: the input order, the labels never read
            loss = listmle(torch.stack(lists))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_ndcg = held_out_ndcg(model, held_out)
    return mon
