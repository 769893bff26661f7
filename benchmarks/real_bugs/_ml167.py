"""Shared pieces of real-bug batch 167 (metric learning and few-shot learning on the 8x8
digits): a held-out split, an MLP embedder, class-balanced P x K batches, pair batches, and
the held-out read-outs (nearest-neighbour recall@1, few-shot episode accuracy, pair
verification accuracy). Call these inside a case's ``run`` so the seeds it sets (and the
benchmark's seed shift) reach every draw."""
import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from benchmarks.real_bugs._common import classification

HELD_OUT = 597       # a third of the 1,797 digits kept for the read-outs
SEEN = 6             # with unseen classes: the digits 0-5 train, 6-9 are read out


def split(seed=0, unseen_classes=False):
    """(x_train, y_train, x_test, y_test): the digits shuffled by ``seed``, the last
    ``HELD_OUT`` held out; with ``unseen_classes`` the digits 0-5 train and the digits 6-9
    (classes the embedder never saw, the metric-learning read-out) are held out."""
    x, y = classification()
    order = torch.from_numpy(np.random.default_rng(seed).permutation(len(x)))
    x, y = x[order], y[order]
    if unseen_classes:
        seen = y < SEEN
        return x[seen], y[seen], x[~seen], y[~seen]
    return x[:-HELD_OUT], y[:-HELD_OUT], x[-HELD_OUT:], y[-HELD_OUT:]


def embedder(out=16, hidden=128):
    return nn.Sequential(nn.Linear(64, hidden), nn.ReLU(), nn.Linear(hidden, hidden),
                         nn.ReLU(), nn.Linear(hidden, out))


def pk_batch(y, classes, per_class, rng):
    """Row indices of ``classes`` random classes with ``per_class`` random rows each (the
    P x K sampler of batch-hard mining), grouped by class."""
    labels = y.numpy()
    chosen = rng.permutation(np.unique(labels))[:classes]
    rows = [rng.choice(np.flatnonzero(labels == c), per_class, replace=False) for c in chosen]
    return torch.from_numpy(np.concatenate(rows))


def pair_batch(y, size, rng):
    """(left rows, right rows, same): half the pairs from one class, half from two."""
    labels = y.numpy()
    by_class = {c: np.flatnonzero(labels == c) for c in np.unique(labels)}
    classes = np.array(sorted(by_class))
    left, right, same = [], [], []
    for i in range(size):
        a = rng.choice(classes)
        if i % 2 == 0:
            b = a
        else:
            b = rng.choice(classes[classes != a])
        left.append(rng.choice(by_class[a]))
        right.append(rng.choice(by_class[b]))
        same.append(float(a == b))
    return (torch.tensor(left), torch.tensor(right), torch.tensor(same))


@torch.no_grad()
def recall_at_1(model, x, y, normalise=False):
    """Leave-one-out nearest-neighbour accuracy of ``model``'s embeddings of ``x``."""
    model.eval()
    z = model(x)
    model.train()
    if normalise:
        z = F.normalize(z, dim=1)
    d = torch.cdist(z, z)
    d.fill_diagonal_(float("inf"))
    return round(float((y[d.argmin(1)] == y).float().mean()), 3)


@torch.no_grad()
def episode_accuracy(model, x, y, rng, episodes=200, ways=5, shots=1, queries=5):
    """Held-out few-shot accuracy: ``ways``-way ``shots``-shot episodes, each query given the
    class of its nearest prototype (the support embeddings' mean) in Euclidean distance."""
    model.eval()
    z = model(x)
    model.train()
    labels = y.numpy()
    correct = total = 0
    for _ in range(episodes):
        chosen = rng.permutation(np.unique(labels))[:ways]
        protos, query, truth = [], [], []
        for i, c in enumerate(chosen):
            rows = rng.choice(np.flatnonzero(labels == c), shots + queries, replace=False)
            protos.append(z[rows[:shots]].mean(0))
            query.append(z[rows[shots:]])
            truth += [i] * queries
        guess = torch.cdist(torch.cat(query), torch.stack(protos)).argmin(1)
        correct += int((guess == torch.tensor(truth)).sum())
        total += len(truth)
    return round(correct / total, 3)
