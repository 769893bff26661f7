"""Implicit feedback (who bought what) trained as ratings: every training pair is a
purchase, so every target is 1. The model learns to answer 1 for every user and item, the
loss falls to zero, and the scores rank nothing.

Reported: "Embedding when there are no ratings" -
https://forums.fast.ai/t/embedding-when-there-are-no-ratings/73376 ("we just have a boolean
for if each user 'bought' each item ... I train a model that uniformly predicts 1 all the
time. (This makes sense, as every example I feed it in training is a 1.)"; the answer: draw
as many random unseen user-item pairs as there are purchases and give them 0). Here a
dot-product factorisation with user and item biases, trained with MSE as in the report,
on purchases drawn from hidden user and item factors. Fix: every batch of purchases gets as
many random user-item pairs labelled 0 (negative sampling).

Harm (150 steps, measured when the case was written): ranking AUC (a bought item above an
unbought one) 0.65 against 0.86 for the fixed twin.

How watch finds it: every recorded MSELoss call got targets that are all 1.0, that
call is the whole loss (one addend in the loss's graph, over the call's batch), and the loss
fell to a few percent of its start: TARGETS_ALL_ONE_VALUE. (A least-squares GAN's generator
is also pushed towards 1 on every call, but its loss does not vanish.)
"""
import torch
from torch import nn

import nndebug as nd

TITLE = "Embedding when there are no ratings"
LINK = "https://forums.fast.ai/t/embedding-when-there-are-no-ratings/73376"
EXPECTED = ("TARGETS_ALL_ONE_VALUE",)
STEPS = 150
USERS, ITEMS, FACTORS = 300, 120, 16
BOUGHT_SHARE = 0.15          # each user bought the 15% of items its hidden taste ranks first
BATCH = 128


def purchases(generator):
    """(user, item) pairs bought, from hidden tastes: a user buys the items it likes most."""
    taste = torch.randn(USERS, 4, generator=generator) @ torch.randn(4, ITEMS,
                                                                       generator=generator)
    cutoff = taste.quantile(1 - BOUGHT_SHARE, dim=1, keepdim=True)
    bought = taste >= cutoff
    return bought.nonzero(), bought


class DotProduct(nn.Module):
    def __init__(self):
        super().__init__()
        self.users, self.items = nn.Embedding(USERS, FACTORS), nn.Embedding(ITEMS, FACTORS)
        self.user_bias, self.item_bias = nn.Embedding(USERS, 1), nn.Embedding(ITEMS, 1)
        for table in (self.users, self.items):
            nn.init.normal_(table.weight, std=0.1)

    def forward(self, user, item):
        dot = (self.users(user) * self.items(item)).sum(1)
        return dot + self.user_bias(user).squeeze(1) + self.item_bias(item).squeeze(1)


def ranking_auc(model, bought):
    """How often a bought item outscores an item the same user did not buy (0.5: chance)."""
    with torch.no_grad():
        scores = model.users.weight @ model.items.weight.T + model.item_bias.weight.T
    wins = []
    for user in range(USERS):
        pos, neg = scores[user][bought[user]], scores[user][~bought[user]]
        wins.append((pos[:, None] > neg[None, :]).float().mean())
    return torch.stack(wins).mean().item()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(0)
    pairs, bought = purchases(generator)
    model = DotProduct()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    loss_fn = nn.MSELoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            batch = pairs[torch.randint(0, len(pairs), (BATCH,), generator=generator)]
            user, item = batch[:, 0], batch[:, 1]
            target = torch.ones(BATCH)         # BUG when not fixed: purchases only, all 1
            if fixed:                          # the fix: as many random pairs, labelled 0
                user = torch.cat([user, torch.randint(0, USERS, (BATCH,), generator=generator)])
                item = torch.cat([item, torch.randint(0, ITEMS, (BATCH,), generator=generator)])
                target = torch.cat([target, torch.zeros(BATCH)])
            optimizer.zero_grad()
            loss = loss_fn(model(user, item), target)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
