"""A BPR loss that sums the whole batch's score differences before the log-sigmoid: the
loss is -log sigmoid(sum over the batch of u . (p - n)), one number for the batch. As soon
as that sum is large the log-sigmoid saturates, its gradient vanishes for every pair at
once, and the pairs still ranked the wrong way are no longer corrected; what gradient is
left pushes every user along the same direction.

Reported: "Feature embeddings for each user and item are identical" -
https://discuss.pytorch.org/t/feature-embeddings-for-each-user-and-item-are-identical/111510
(``loss = torch.sum(torch.mul(u, p - n)); loss = F.logsigmoid(loss)`` then
``torch.neg(loss)``; "the feature embeddings for each user and item become more similar
after each epoch"). Here a matrix factorisation over users' purchases drawn from hidden
tastes, one sampled negative item per purchase. Fix: the per-pair score difference
(``(u * (p - n)).sum(1)``), log-sigmoid per pair, then the mean over the batch.

Harm (150 steps, measured when the case was written): ranking AUC 0.70 against 0.98 for the
fixed twin.

How watch finds it: on the first recorded steps the monitor walks the loss's graph and
finds the log-sigmoid's input to be the sum of a whole (128, 16) batch - a reduction to one
number of something computed, not of a weight: BATCH_SUMMED_INSIDE_LOSS.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd

TITLE = "Feature embeddings for each user and item are identical"
LINK = "https://discuss.pytorch.org/t/feature-embeddings-for-each-user-and-item-are-identical/111510"
EXPECTED = ("BATCH_SUMMED_INSIDE_LOSS",)
STEPS = 150
USERS, ITEMS, FACTORS = 300, 120, 16
BOUGHT_SHARE = 0.15          # each user bought the 15% of items its hidden taste ranks first
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

    def forward(self, user, positive, negative):
        return self.users(user), self.items(positive), self.items(negative)


def ranking_auc(model, bought):
    """How often a bought item outscores an item the same user did not buy (0.5: chance)."""
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
            # a random item the user did not buy
            weights = (~bought[user]).float()
            negative = torch.multinomial(weights, 1, generator=generator).squeeze(1)
            u, p, n = model(user, positive, negative)
            optimizer.zero_grad()
            if fixed:
                loss = -F.logsigmoid((u * (p - n)).sum(1)).mean()
            else:            # BUG: one sum over the whole batch inside the log-sigmoid
                loss = -F.logsigmoid(torch.sum(torch.mul(u, p - n)))
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
