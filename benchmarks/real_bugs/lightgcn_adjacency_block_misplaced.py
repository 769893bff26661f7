"""LightGCN's user-item graph built with the interaction matrix R in the wrong block: the
adjacency over users and items (users first, then items) should be [[0, R], [R^T, 0]] so
that users gather from the items they bought and items from their buyers; written as
[[R, 0], [0, 0]] the user rows point at the first ITEMS node ids, which are users, and
the items' rows are empty. Every propagated layer mixes each user with arbitrary other
users, and items never hear of their buyers.

Reported: "There seems to be a problem with the code,1. In the creation of the adjacency
matrix and 2. In the normalization of the adjacency matrix" -
https://github.com/yirutsai/LightGCN/issues/2 ("Matrix of adjacency Not so: [R 0; 0 0] It
goes like this: [0 R; R^T 0]"). Here LightGCN (embeddings propagated over the normalised
adjacency, the layers averaged, a dot product scored with BPR) on users' purchases drawn
from hidden tastes. Fix: R in the upper-right block and R^T in the lower-left.

Harm (150 steps, measured when the case was written): AUC of held-out purchases 0.85
against 0.98 for the fixed twin.

How watch finds it: the (420, 420) propagation matrix has 29% of its rows all zero (the
items) and a pattern that is not symmetric: NODES_GATHER_NOTHING, whose fix says build it
both ways. EXPECTED first named ADJACENCY_NOT_SYMMETRIC, written before the rule.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd

TITLE = ("There seems to be a problem with the code,1. In the creation of the adjacency "
         "matrix and 2. In the normalization of the adjacency matrix")
LINK = "https://github.com/yirutsai/LightGCN/issues/2"
EXPECTED = ("NODES_GATHER_NOTHING",)
STEPS = 150
USERS, ITEMS, FACTORS, LAYERS = 300, 120, 16, 2
BOUGHT_SHARE = 0.15          # each user bought the 15% of items its hidden taste ranks first
TRAIN_SHARE = 0.8            # purchases the graph and the loss see; the rest are held out
BATCH = 256


def purchases(generator):
    taste = torch.randn(USERS, 4, generator=generator) @ torch.randn(4, ITEMS,
                                                                       generator=generator)
    bought = taste >= taste.quantile(1 - BOUGHT_SHARE, dim=1, keepdim=True)
    seen = bought & (torch.rand(USERS, ITEMS, generator=generator) < TRAIN_SHARE)
    return seen, bought & ~seen


def adjacency(seen, fixed):
    nodes = USERS + ITEMS
    a = torch.zeros(nodes, nodes)
    r = seen.float()
    if fixed:
        a[:USERS, USERS:], a[USERS:, :USERS] = r, r.T
    else:                                      # BUG: R in the upper-left block, no R^T
        a[:USERS, :ITEMS] = r
    degree = a.sum(1)
    scale = torch.where(degree > 0, degree.clamp(min=1).rsqrt(), torch.zeros_like(degree))
    return scale[:, None] * a * scale[None, :]


class LightGCN(nn.Module):
    def __init__(self, propagate):
        super().__init__()
        self.embedding = nn.Embedding(USERS + ITEMS, FACTORS)
        nn.init.normal_(self.embedding.weight, std=0.1)
        self.register_buffer("propagate", propagate)

    def forward(self):
        layers = [self.embedding.weight]
        for _ in range(LAYERS):
            layers.append(self.propagate @ layers[-1])
        final = torch.stack(layers).mean(0)
        return final[:USERS], final[USERS:]


def held_out_auc(model, seen, held_out):
    """How often a held-out purchase outscores an item the user never bought."""
    with torch.no_grad():
        users, items = model()
        scores = users @ items.T
    wins = []
    for u in range(USERS):
        if held_out[u].any():
            negatives = ~(seen[u] | held_out[u])
            wins.append((scores[u][held_out[u]][:, None] >
                         scores[u][negatives][None, :]).float().mean())
    return torch.stack(wins).mean().item()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(0)
    seen, held_out = purchases(generator)
    pairs = seen.nonzero()
    model = LightGCN(adjacency(seen, fixed))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            batch = pairs[torch.randint(0, len(pairs), (BATCH,), generator=generator)]
            user, positive = batch[:, 0], batch[:, 1]
            negative = torch.multinomial((~seen[user]).float(), 1,
                                         generator=generator).squeeze(1)
            users, items = model()
            u, p, n = users[user], items[positive], items[negative]
            optimizer.zero_grad()
            loss = -F.logsigmoid((u * p).sum(1) - (u * n).sum(1)).mean()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
