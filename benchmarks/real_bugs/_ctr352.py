"""Pieces the click-through-rate cases of batch 352 share: synthetic ad impressions of 8
label-encoded categorical fields whose clicks follow a hidden factorisation machine
(pairwise field interactions plus a weaker first-order part), rare clicks (about one in
five impressions), the fields as one-hot columns, and the held-out AUC."""
import numpy as np
import torch

SIZES = (4, 6, 5, 3, 8, 4, 5, 6)        # values per field
COLUMNS = sum(SIZES)                    # one-hot width: 41
OFFSETS = np.array((0, *np.cumsum(SIZES)[:-1]))


def impressions(count, seed=0):
    """(ids (count, 8) int64 label-encoded fields, clicks (count,) float32 0/1).

    The click probability is sigmoid(2.5 * pairwise + 0.5 * linear - 2), pairwise the sum
    over field pairs of the dot products of hidden 4-dimensional value factors (centred
    over each field's values, so the pairs carry no first-order effect; scaled to unit
    spread), so most of what can be learned lies in the pairwise interactions."""
    rng = np.random.default_rng(seed)
    ids = np.stack([rng.integers(n, size=count) for n in SIZES], axis=1)
    factors = [rng.normal(size=(n, 4)) for n in SIZES]
    factors = [f - f.mean(0) for f in factors]     # no main effect hidden in the pairs
    weights = [rng.normal(size=n) for n in SIZES]
    pairwise = np.zeros(count)
    linear = np.zeros(count)
    for i in range(len(SIZES)):
        linear += weights[i][ids[:, i]]
        for j in range(i + 1, len(SIZES)):
            pairwise += (factors[i][ids[:, i]] * factors[j][ids[:, j]]).sum(1)
    pairwise = (pairwise - pairwise.mean()) / pairwise.std()
    linear = (linear - linear.mean()) / linear.std()
    p = 1 / (1 + np.exp(-(2.5 * pairwise + 0.5 * linear - 2.0)))
    clicks = (rng.random(count) < p).astype(np.float32)
    return torch.from_numpy(ids), torch.from_numpy(clicks)


def one_hot(ids):
    """The fields as one 0/1 row of COLUMNS columns (one 1 per field)."""
    x = torch.zeros(len(ids), COLUMNS)
    x.scatter_(1, ids + torch.from_numpy(OFFSETS), 1.0)
    return x


def auc(scores, clicks):
    """Area under the ROC curve: the chance a random click outranks a random non-click
    (ties count one half)."""
    scores = scores.detach().double().flatten()
    clicks = clicks.flatten().bool()
    order = torch.argsort(scores)
    ranks = torch.empty_like(scores)
    ranks[order] = torch.arange(1, len(scores) + 1, dtype=torch.float64)
    # average ranks over ties
    values, inverse, counts = torch.unique(scores, return_inverse=True, return_counts=True)
    sums = torch.zeros(len(values), dtype=torch.float64).index_add_(0, inverse, ranks)
    ranks = (sums / counts)[inverse]
    positives = int(clicks.sum())
    negatives = len(scores) - positives
    return float((ranks[clicks].sum() - positives * (positives + 1) / 2) / (positives * negatives))
