"""Click data trained with a listwise softmax loss where every "list" holds ONE document:
the rows were fed one example per list (one query-document pair per context), so the
softmax over a list has a single entry, equal to 1 whatever the score. The loss of every
list is exactly 0 and so is its gradient: the optimizer steps, the loss curve is flat at
zero (which reads as "converged"), and the scorer never moves from its initialisation.

Reported: "Questions about CTR problem with TFRanking" -
https://github.com/tensorflow/ranking/issues/207 (a user training a click-through ranker
with TF-Ranking's listwise loss got a loss of zero throughout and an NDCG of 1; he worked
out that each of his example lists held a single example, and the maintainer confirmed:
pairwise and listwise losses need at least two documents with different labels in a list;
put the documents of one query together, or use a point-wise loss). Here: synthetic
queries of 20 documents with graded relevance (benchmarks/real_bugs/_ranking.py), the
click label is grade 3 or 4, a small MLP scorer, the softmax (top-one) loss with
click-proportional targets, Adam 1e-3, 16 queries a step. The bug makes each document its
own list; the fix keeps each query's documents together in one list.

Measured (held-out NDCG@10 on 200 queries of graded relevance; a random order scores about
0.41): seed 0, 0.51 for the bug against 0.90 for the fixed twin; seeds shifted by 1000,
0.46 against 0.95. The bug run's loss is 0.0 at every step.
"""
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._ranking import held_out_ndcg, query_batches, queries, scorer, split

TITLE = "Questions about CTR problem with TFRanking"
LINK = "https://github.com/tensorflow/ranking/issues/207"
EXPECTED = ("NO_GRADIENT", "LISTWISE_LOSS_ON_SINGLETON_LISTS")
STEPS = 300
CLICK_GRADE = 3


def softmax_loss(scores, labels):
    """The listwise softmax loss of one list: cross-entropy of the scores' softmax against
    the labels normalised to sum to one (a list with no click contributes 0)."""
    total = labels.sum()
    if total == 0:
        return scores.sum() * 0.0
    return -(labels / total * F.log_softmax(scores, dim=-1)).sum()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, held_out = split(queries(1000, seed=0))
    model = scorer()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for batch in query_batches(len(train), steps):
            losses = []
            for i in batch:
                x, grades = train[i]
                scores = model(x).squeeze(-1)
                clicked = (grades >= CLICK_GRADE).float()
                if fixed:
                    losses.append(softmax_loss(scores, clicked))
                else:                      # BUG: every document is a list of its own
                    losses.extend(softmax_loss(scores[j:j + 1], clicked[j:j + 1])
                                  for j in range(len(scores)))
            loss = torch.stack(losses).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_ndcg = held_out_ndcg(model, held_out)
    return mon
