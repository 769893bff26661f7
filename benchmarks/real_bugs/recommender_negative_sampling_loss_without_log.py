"""A recommender's negative-sampling loss written without its log: each observed (user,
item) pair gets sign +1, each sampled item the user never touched sign -1, and the loss is
``-mean(sigmoid(sign * score))`` - minus a probability - where it should be
``-mean(logsigmoid(sign * score))``, minus a log-likelihood. Minus a probability has a
gradient sigmoid'(x) that vanishes at both ends: the pairs the model ranks most wrongly
(a bought item scored far below zero, a never-bought one far above) are the ones it stops
correcting, and the loss is bounded in [-1, 0], so it flattens long before the ranking is
good.

Reported: "[BUG] LINE loss calculation" (RecBole, in Chinese: "关于LINE的损失计算问题") -
https://github.com/RUCAIBox/RecBole/issues/1505: ``NegSamplingLoss`` returned
``-torch.mean(torch.sigmoid(sign * score))``, "the log is never taken before the mean";
with ``F.logsigmoid`` the reporter's recall@10 went from 0.098 to 0.192; the maintainers
added the log (RecBole PR #1507). Here a matrix factorisation of users' purchases drawn
from hidden tastes, one sampled negative per purchase. Fix: ``F.logsigmoid`` before the
mean.

Measured (300 steps): ranking AUC (a bought item above one the same user did not buy)
0.837 with the bug, 0.975 for the fixed twin (nn.Embedding at its default N(0, 1)
init, Adam at 3e-2).

How watch finds it: on the first recorded steps the walk of the loss's graph finds its
root to be minus a whole-batch mean of a sigmoid's outputs, nothing added to it
(``monitor/maximised_probabilities.py``): NLL_ON_PROBABILITIES, a probability maximised
where its log was meant.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd

TITLE = "[BUG] 关于LINE的损失计算问题 (LINE loss calculation)"
LINK = "https://github.com/RUCAIBox/RecBole/issues/1505"
EXPECTED = ("NLL_ON_PROBABILITIES",)
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
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-2)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            batch = pairs[torch.randint(0, len(pairs), (BATCH,), generator=generator)]
            user, positive = batch[:, 0], batch[:, 1]
            negative = torch.multinomial((~bought[user]).float(), 1,
                                         generator=generator).squeeze(1)
            users = torch.cat([user, user])
            items = torch.cat([positive, negative])
            sign = torch.cat([torch.ones(BATCH), -torch.ones(BATCH)])
            optimizer.zero_grad()
            score = model(users, items)
            if fixed:
                loss = -F.logsigmoid(sign * score).mean()
            else:                   # BUG: minus a probability, no log
                loss = -torch.sigmoid(sign * score).mean()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.ranking_auc = round(ranking_auc(model, bought), 3)
    return mon
