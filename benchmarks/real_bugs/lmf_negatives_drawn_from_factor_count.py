"""A logistic matrix factorisation draws its negative items from ``range(n_items)`` where
``n_items`` was read off the wrong axis of the item table: ``item_vectors.shape[1]`` (the
number of factors) instead of ``shape[0]`` (the number of items). Every negative is one of
the first 16 items; the other items are only ever seen as positives, so their scores are
pushed up for every user alike and the model ranks by popularity-within-the-unsampled
rather than by taste. Nothing fails: ids are in range, the loss falls.

Reported: "Fix LMF Negative Sampling to Sample Uniformly" -
https://github.com/benfred/implicit/pull/747 ("n_items used item_vectors.shape[1]
(= n_factors+2) instead of shape[0], capping the negative loop at ~34 regardless of
catalogue size ... the model was barely seeing true negatives"). Here a factorisation of
users' purchases drawn from hidden tastes, trained with logistic loss on each purchase and
one sampled negative. Fix: ``torch.randint(0, model.items.weight.shape[0], ...)``.

Measured (300 steps): ranking AUC (a bought item above one the same user did not buy)
0.822 with the bug, 0.987 for the fixed twin.

How watch finds it: the ids of the first lookups of each embedding, kept by the
categorical-input hooks, show the item table looked up twice a step, once with ids
0..15 drawn across that whole range - a range ending at the table's width of 16, in a
table of 120 rows - and once with ids up to 119 (``monitor/narrow_lookups.py``):
NEGATIVES_FROM_FEW_IDS.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd

TITLE = "Fix LMF Negative Sampling to Sample Uniformly"
LINK = "https://github.com/benfred/implicit/pull/747"
EXPECTED = ("NEGATIVES_FROM_FEW_IDS",)
STEPS = 300
USERS, ITEMS, FACTORS = 300, 120, 16
BOUGHT_SHARE = 0.15
BATCH = 128


def purchases(generator):
    taste = torch.randn(USERS, 4, generator=generator) @ torch.randn(4, ITEMS,
                                                                       generator=generator)
    bought = taste >= taste.quantile(1 - BOUGHT_SHARE, dim=1, keepdim=True)
    return bought.nonzero(), bought


class Factorisation(nn.Module):
    def __init__(self):
        super().__init__()
        self.users, self.items = nn.Embedding(USERS, FACTORS), nn.Embedding(ITEMS, FACTORS)
        for table in (self.users, self.items):
            nn.init.normal_(table.weight, std=0.1)

    def forward(self, user, item):
        return (self.users(user) * self.items(item)).sum(1)


def ranking_auc(model, bought):
    with torch.no_grad():
        scores = model.users.weight @ model.items.weight.T
    wins = [(scores[u][bought[u]][:, None] > scores[u][~bought[u]][None, :]).float().mean()
            for u in range(USERS)]
    return torch.stack(wins).mean().item()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(0)
    pairs, bought = purchases(generator)
    model = Factorisation()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            batch = pairs[torch.randint(0, len(pairs), (BATCH,), generator=generator)]
            user, positive = batch[:, 0], batch[:, 1]
            if fixed:
                n_items = model.items.weight.shape[0]
            else:                   # BUG: the factor axis read as the item count
                n_items = model.items.weight.shape[1]
            negative = torch.randint(0, n_items, (BATCH,), generator=generator)
            optimizer.zero_grad()
            positive_score = model(user, positive)
            negative_score = model(user, negative)
            loss = -(F.logsigmoid(positive_score) + F.logsigmoid(-negative_score)).mean()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.ranking_auc = round(ranking_auc(model, bought), 3)
    return mon
