"""A pointwise click/relevance ranker whose scores pass through ``torch.sigmoid`` before
``BCEWithLogitsLoss``, which applies its own sigmoid. The loss therefore sees
``sigmoid(sigmoid(z))``, a probability confined to (0.5, 0.73): it can never get near 0 for
the documents that are not relevant, so its gradient on them never stops, and the slope of
the outer sigmoid over the inner one's narrow range is small (at most 0.25 * 0.25 of the
raw score's): the loss stays near ``log 2`` from the start, the scorer learns to separate
relevant from irrelevant documents far more slowly than with raw scores, and nothing
errors.

Reported: "Change default loss in BinaryOutput to BCELoss" -
https://github.com/NVIDIA-Merlin/models/pull/1175 (in Merlin Models' PyTorch API, the
binary output block of recommendation/ranking models ends in a sigmoid, and its default
loss was ``BCEWithLogitsLoss``, so every model trained with the defaults applied the
sigmoid twice; the pull request, labelled a bug, made the default ``BCELoss``). Fix here:
give ``BCEWithLogitsLoss`` the raw scores (the same loss as ``BCELoss`` on the sigmoid's
output).

Set-up here: synthetic queries of 20 documents with graded relevance 0-4
(benchmarks/real_bugs/_ranking.py), each query's features centred on the query's mean;
the training label is a click, grade 3 or 4 (the top quarter of a query); a small MLP
scorer, point-wise BCE, plain SGD at 0.1, 16 queries a step. The held-out metric is the
NDCG@10 of the graded relevance.

Measured (held-out NDCG@10 on 200 queries; a random order scores about 0.41): seed 0,
0.75 for the bug against 0.89 for the fixed twin; seeds shifted by 1000, 0.66 against
0.95. The bug run's loss stays at 0.70 (log 2) against the twin's 0.28 (0.20 at +1000).
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._ranking import held_out_ndcg, query_batches, queries, scorer, split

TITLE = "Change default loss in BinaryOutput to BCELoss"
LINK = "https://github.com/NVIDIA-Merlin/models/pull/1175"
EXPECTED = ("DOUBLE_SIGMOID",)
STEPS = 300
CLICK_GRADE = 3
LR = 0.1


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    # each query's features centred on the query's mean (the usual per-query normalisation:
    # a click is relative to the other documents of its query)
    train, held_out = split([(x - x.mean(0), g) for x, g in queries(1000, seed=0)])
    model = scorer()
    optimizer = torch.optim.SGD(model.parameters(), lr=LR)
    loss_fn = nn.BCEWithLogitsLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for batch in query_batches(len(train), steps):
            x = torch.cat([train[i][0] for i in batch])
            clicked = torch.cat([(train[i][1] >= CLICK_GRADE).float() for i in batch])
            score = model(x).squeeze(-1)
            if not fixed:
                score = torch.sigmoid(score)     # BUG: the loss applies its own sigmoid
            loss = loss_fn(score, clicked)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_ndcg = held_out_ndcg(model, held_out)
    return mon
