"""Shared pieces of the batch-295 two-tower retrieval cases: a small synthetic
user-item interaction log with a long-tailed item popularity, and the query/item towers
a first retrieval tutorial builds (an id embedding and a small MLP per tower, dot-product
scores, in-batch softmax over the batch's items).

Users and items live in a hidden 8-dimensional taste space; each user draws 24 items from
a softmax of taste match plus the item's popularity (Zipf-like), so a few items are in a
large share of the interactions. The last 4 draws of every user are held out; held-out
quality is the hit rate at 10 over the whole catalogue (the training items of the user
masked out), as a retrieval index would serve it.
"""
import numpy as np
import torch
from torch import nn

USERS = 500
ITEMS = 300
PER_USER = 24
HELD = 4
DIM = 32


def interactions(seed=0):
    """(train_users, train_items), (held_users, held_items), item frequency in training."""
    rng = np.random.default_rng(seed)
    user_taste = rng.normal(size=(USERS, 8))
    item_taste = rng.normal(size=(ITEMS, 8))
    popularity = -1.1 * np.log(np.arange(1, ITEMS + 1))        # Zipf-like log popularity
    popularity = popularity[rng.permutation(ITEMS)]
    logits = 0.9 * user_taste @ item_taste.T + popularity
    probs = np.exp(logits - logits.max(1, keepdims=True))
    probs /= probs.sum(1, keepdims=True)
    train_u, train_i, held_u, held_i = [], [], [], []
    for u in range(USERS):
        items = rng.choice(ITEMS, size=PER_USER, replace=False, p=probs[u])
        train_u += [u] * (PER_USER - HELD)
        train_i += list(items[:PER_USER - HELD])
        held_u += [u] * HELD
        held_i += list(items[PER_USER - HELD:])
    train = torch.tensor(train_u), torch.tensor(train_i)
    held = torch.tensor(held_u), torch.tensor(held_i)
    frequency = torch.bincount(train[1], minlength=ITEMS).float()
    return train, held, frequency / frequency.sum()


class Tower(nn.Module):
    def __init__(self, count, dim=DIM):
        super().__init__()
        self.embed = nn.Embedding(count, 64)
        self.net = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, dim))

    def forward(self, ids):
        return self.net(self.embed(ids))


class TwoTower(nn.Module):
    """Query (user) tower and item tower."""

    def __init__(self):
        super().__init__()
        self.query = Tower(USERS)
        self.item = Tower(ITEMS)


def hit_rate(model, train, held, k=10):
    """Held-out hit rate at k: each held-out (user, item) found in the user's top k of the
    whole catalogue, the user's training items masked out."""
    model.eval()
    with torch.no_grad():
        scores = model.query(torch.arange(USERS)) @ model.item(torch.arange(ITEMS)).T
        scores[train[0], train[1]] = -float("inf")
        top = scores.topk(k, dim=1).indices
    model.train()
    return (top[held[0]] == held[1][:, None]).any(1).float().mean().item()


def index_batches(n, steps, batch_size=128, seed=0):
    generator = torch.Generator().manual_seed(seed)
    done = 0
    while True:
        order = torch.randperm(n, generator=generator)
        for start in range(0, n - batch_size + 1, batch_size):
            yield order[start:start + batch_size]
            done += 1
            if done == steps:
                return


# ---- content-based two towers (user features, item features) regressing ratings ----

USER_FEATURES = 14
ITEM_FEATURES = 16


def ratings(seed=0, users=400, items=300, count=12000):
    """Movie-lens-like explicit ratings from features: (user_x, item_x, train (u, i, r),
    held (u, i, r)); ratings on the 0.5..5 star scale in half stars."""
    rng = np.random.default_rng(seed)
    taste = rng.normal(size=(8, USER_FEATURES))
    kind = rng.normal(size=(8, ITEM_FEATURES))
    user_hidden = rng.normal(size=(users, 8))
    item_hidden = rng.normal(size=(items, 8))
    user_x = user_hidden @ taste + 0.3 * rng.normal(size=(users, USER_FEATURES))
    item_x = item_hidden @ kind + 0.3 * rng.normal(size=(items, ITEM_FEATURES))
    u = rng.integers(0, users, size=count)
    i = rng.integers(0, items, size=count)
    match = (user_hidden[u] * item_hidden[i]).sum(1) / np.sqrt(8)
    r = 3.2 + 1.4 * np.tanh(match) + 0.4 * rng.normal(size=count)
    r = np.clip(np.round(r * 2) / 2, 0.5, 5.0)
    split = int(0.8 * count)
    as_t = lambda a, dt=torch.float32: torch.tensor(a, dtype=dt)  # noqa: E731
    train = as_t(u[:split], torch.long), as_t(i[:split], torch.long), as_t(r[:split])
    held = as_t(u[split:], torch.long), as_t(i[split:], torch.long), as_t(r[split:])
    return as_t(user_x), as_t(item_x), train, held


def feature_tower(inputs, dim=16):
    return nn.Sequential(nn.Linear(inputs, 64), nn.ReLU(), nn.Linear(64, 32), nn.ReLU(),
                         nn.Linear(32, dim))


class ContentTowers(nn.Module):
    """The course's user network and item network."""

    def __init__(self):
        super().__init__()
        self.user = feature_tower(USER_FEATURES)
        self.item = feature_tower(ITEM_FEATURES)
