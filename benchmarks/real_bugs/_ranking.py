"""Learning-to-rank pieces the batch-132 cases share: synthetic queries with lists of
documents and graded relevance, a small MLP scorer, listwise / pairwise losses written the
ordinary way, and the held-out NDCG@10 the cases report.

Each query has its own offset (a random multiple of one feature direction shared by every
query), so documents of different queries sit at different levels of the hidden relevance
function; a document's grade (0-4) is its place WITHIN its own query by that function (the
top tenth grade 4, ...), with a little label noise. A scorer that orders a query's
documents by the hidden function is right; comparing documents of different queries is
meaningless (the label of a query's best document says nothing about another query's).
"""
import math

import numpy as np
import torch
from torch import nn

FEATURES = 12
HIDDEN = 32
OFFSET_SCALE = 3.0      # query offsets, against the within-query spread (about 1)
NDCG_AT = 10


def _hidden_relevance(x, w, v):
    return x @ w + 0.5 * np.sin(2.0 * (x @ v))


def queries(n_queries, docs=(20, 20), seed=0):
    """A list of (features float32 (n, FEATURES), grades float32 (n,)) per query; ``docs``:
    the (low, high) bounds of each query's document count (inclusive). The hidden function
    is drawn from ``seed`` too, so call with the same seed for train and held-out sets and
    split afterwards (``split``)."""
    rng = np.random.default_rng(seed)
    w = rng.normal(size=FEATURES) / math.sqrt(FEATURES)
    v = rng.normal(size=FEATURES) / math.sqrt(FEATURES)
    direction = w / np.linalg.norm(w)
    out = []
    for _ in range(n_queries):
        n = int(rng.integers(docs[0], docs[1] + 1))
        x = rng.normal(size=(n, FEATURES)) + OFFSET_SCALE * rng.normal() * direction
        h = _hidden_relevance(x, w, v) + 0.15 * rng.normal(size=n)
        place = np.argsort(np.argsort(-h)) / n          # 0 = best of its own query
        grade = np.select([place < 0.1, place < 0.25, place < 0.45, place < 0.7],
                          [4, 3, 2, 1], 0)
        out.append((torch.tensor(x, dtype=torch.float32),
                    torch.tensor(grade, dtype=torch.float32)))
    return out


def split(all_queries, held_out=200):
    return all_queries[:-held_out], all_queries[-held_out:]


def scorer():
    return nn.Sequential(nn.Linear(FEATURES, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, HIDDEN),
                         nn.ReLU(), nn.Linear(HIDDEN, 1))


def query_batches(n, steps, batch=16, seed=0):
    """``steps`` lists of query indices (with replacement), from a private generator."""
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        yield rng.integers(0, n, batch).tolist()


def pad(lists, value=0.0):
    """Stack 1-D or 2-D tensors of different lengths into (B, longest, ...) padded with
    ``value``; also the (B, longest) mask of real entries."""
    longest = max(len(t) for t in lists)
    shape = (len(lists), longest) + tuple(lists[0].shape[1:])
    out = torch.full(shape, value, dtype=lists[0].dtype)
    mask = torch.zeros(len(lists), longest, dtype=torch.bool)
    for row, t in enumerate(lists):
        out[row, :len(t)] = t
        mask[row, :len(t)] = True
    return out, mask


def ndcg(scores, grades, k=NDCG_AT):
    """NDCG@k of one query: gains 2^grade - 1, log2 discounts; 1.0 where no document is
    relevant."""
    order = torch.argsort(scores, descending=True)[:k]
    ideal = torch.sort(grades, descending=True).values[:k]
    discounts = 1.0 / torch.log2(torch.arange(2, k + 2, dtype=torch.float32))
    dcg = ((2 ** grades[order] - 1) * discounts[:len(order)]).sum()
    idcg = ((2 ** ideal - 1) * discounts[:len(ideal)]).sum()
    return 1.0 if idcg == 0 else float(dcg / idcg)


def held_out_ndcg(model, held_out):
    with torch.no_grad():
        return float(np.mean([ndcg(model(x).squeeze(-1), g) for x, g in held_out]))


def listmle(scores, mask=None):
    """ListMLE (Plackett-Luce negative log-likelihood) of (B, n) scores already in the
    order the list should be ranked in (best first); padded slots (mask False) left out
    of every normaliser and of the sum."""
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    tail = torch.logcumsumexp(scores.flip(-1), dim=-1).flip(-1)
    terms = tail - scores
    if mask is not None:
        terms = terms.masked_fill(~mask, 0.0)
    return terms.sum(-1).mean()


def ranknet(scores, grades):
    """RankNet over every ordered pair of one list: -log sigmoid(s_i - s_j) for each pair
    with grade_i > grade_j, averaged."""
    diff = scores[:, None] - scores[None, :]
    better = grades[:, None] > grades[None, :]
    if not better.any():
        return scores.sum() * 0.0
    return nn.functional.softplus(-diff[better]).mean()
