"""Data and models the batch-152 cases share (tabular and recommender reports).

explicit_ratings  a low-rank user x item rating matrix (1-5 stars) of which a small share
                  is observed, split into train and held-out cells
implicit_feedback each user's positive items drawn from a low-rank preference, one held
                  out per user (leave-one-out), with hit rate at 10 to score a model
categorical_table rows with one high-cardinality categorical column and a few numbers,
                  a binary label that depends on both
"""
import numpy as np
import torch
from torch import nn


def explicit_ratings(rng, users=300, items=200, rank=4, observed=0.12, held_out=0.2):
    """(train, test): each a tuple of int64 user ids, item ids and float32 ratings in 1-5."""
    u = rng.normal(size=(users, rank))
    v = rng.normal(size=(items, rank))
    user_bias = rng.normal(scale=0.5, size=(users, 1))
    item_bias = rng.normal(scale=0.5, size=(1, items))
    full = 3.2 + 0.6 * (u @ v.T) / np.sqrt(rank) + user_bias + item_bias
    full = np.clip(full + rng.normal(scale=0.3, size=full.shape), 1, 5)
    seen = np.argwhere(rng.random((users, items)) < observed)
    rng.shuffle(seen)
    cut = int(len(seen) * (1 - held_out))

    def part(cells):
        return (torch.from_numpy(cells[:, 0].copy()).long(),
                torch.from_numpy(cells[:, 1].copy()).long(),
                torch.from_numpy(full[cells[:, 0], cells[:, 1]].astype(np.float32)))
    return part(seen[:cut]), part(seen[cut:])


class BiasedMF(nn.Module):
    """rating = global + user bias + item bias + <user factors, item factors>."""

    def __init__(self, users, items, dim=8):
        super().__init__()
        self.user = nn.Embedding(users, dim)
        self.item = nn.Embedding(items, dim)
        self.user_bias = nn.Embedding(users, 1)
        self.item_bias = nn.Embedding(items, 1)
        for table in (self.user, self.item):
            nn.init.normal_(table.weight, std=0.1)
        for table in (self.user_bias, self.item_bias):
            nn.init.zeros_(table.weight)
        self.offset = nn.Parameter(torch.zeros(()))

    def forward(self, users, items):
        dot = (self.user(users) * self.item(items)).sum(-1)
        return (self.offset + dot + self.user_bias(users).squeeze(-1)
                + self.item_bias(items).squeeze(-1))


def implicit_feedback(rng, users=200, items=60, rank=4, liked=12):
    """(positives, held_out): positives is a list of int arrays (each user's training
    items), held_out an int64 array of one further liked item per user. A user likes the
    ``liked`` items that score highest under a low-rank preference plus noise."""
    u = rng.normal(size=(users, rank))
    v = rng.normal(size=(items, rank))
    popularity = rng.normal(scale=0.7, size=(1, items))
    score = u @ v.T + popularity + rng.normal(scale=0.5, size=(users, items))
    positives, held_out = [], []
    for row in score:
        top = np.argsort(-row)[:liked]
        rng.shuffle(top)
        held_out.append(top[0])
        positives.append(np.sort(top[1:]))
    return positives, np.array(held_out)


class GMF(nn.Module):
    """Generalised matrix factorisation (NCF): a logit from the element-wise product."""

    def __init__(self, users, items, dim=16):
        super().__init__()
        self.user = nn.Embedding(users, dim)
        self.item = nn.Embedding(items, dim)
        for table in (self.user, self.item):
            nn.init.normal_(table.weight, std=0.1)
        self.out = nn.Linear(dim, 1)

    def forward(self, users, items):
        return self.out(self.user(users) * self.item(items)).squeeze(-1)


@torch.no_grad()
def hit_rate(model, positives, held_out, k=10):
    """Share of users whose held-out item ranks in the model's top k of the items they
    have not interacted with in training."""
    users, items = len(positives), model.item.num_embeddings
    hits = 0
    for user in range(users):
        scores = model(torch.full((items,), user), torch.arange(items))
        scores[torch.from_numpy(positives[user])] = -float("inf")
        hits += int(held_out[user] in torch.topk(scores, k).indices.tolist())
    return hits / users


def categorical_table(rng, rows, levels, numbers=4, effect=1.0, skew=0.0):
    """(codes int64 (rows,), numbers float32 (rows, numbers), labels float32 (rows,)): the
    label's log-odds are a per-level effect (scale ``effect``) plus a linear score of the
    numbers. ``skew`` > 0: the levels' frequencies fall as 1/rank**skew, the ranks given
    to the levels in a random order (rare levels anywhere in the sorted list)."""
    level_effect = rng.normal(scale=effect, size=levels)
    weights = rng.normal(size=numbers)
    share = 1.0 / (1 + rng.permutation(levels)) ** skew
    codes = rng.choice(levels, size=rows, p=share / share.sum())
    x = rng.normal(size=(rows, numbers))
    logit = level_effect[codes] + x @ weights
    y = (rng.random(rows) < 1 / (1 + np.exp(-logit))).astype(np.float32)
    return (torch.from_numpy(codes).long(), torch.from_numpy(x.astype(np.float32)),
            torch.from_numpy(y))
