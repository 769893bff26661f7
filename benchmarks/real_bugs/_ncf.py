"""Pieces the batch-217 cases (implicit-feedback matrix factorisation trained with BPR)
share: synthetic implicit feedback (``_tab152.implicit_feedback``: each user's favourite
items under a low-rank taste plus noise, one held out), a dot-product matrix
factorisation, (user, positive, negative) triples drawn the usual way, and the held-out
hit rate at 10 the cases report.
"""
import numpy as np
import torch
from torch import nn

from benchmarks.real_bugs._tab152 import implicit_feedback  # noqa: F401  (re-exported)


class DotMF(nn.Module):
    """score(user, item) = <user vector, item vector>; ``self.item`` is read by hit_rate."""

    def __init__(self, users, items, dim=16, std=0.1):
        super().__init__()
        self.user = nn.Embedding(users, dim)
        self.item = nn.Embedding(items, dim)
        for table in (self.user, self.item):
            nn.init.normal_(table.weight, std=std)

    def forward(self, users, items):
        return (self.user(users) * self.item(items)).sum(-1)


def triple_sampler(positives, items, verify=True):
    """A function batch(n) -> (users, positive items, negative items): users uniformly,
    one of the user's training items, one item the user never interacted with (any item
    at all when ``verify`` is False) - all from numpy's global generator (seeded by the
    case through np.random.seed)."""
    liked = [np.asarray(p) for p in positives]
    unseen = [np.setdiff1d(np.arange(items), p) if verify else np.arange(items)
              for p in liked]

    def batch(n):
        users = np.random.randint(0, len(liked), n)
        pos = np.array([liked[u][np.random.randint(len(liked[u]))] for u in users])
        neg = np.array([unseen[u][np.random.randint(len(unseen[u]))] for u in users])
        return torch.from_numpy(users), torch.from_numpy(pos), torch.from_numpy(neg)
    return batch


@torch.no_grad()
def hit_rate(score_all, positives, held_out, k=10):
    """Share of users whose held-out item is in the top k of the items they did not
    interact with in training; ``score_all()`` returns the (users, items) score matrix."""
    scores = score_all().clone()
    for user, liked in enumerate(positives):
        scores[user, torch.from_numpy(np.asarray(liked))] = -float("inf")
    top = torch.topk(scores, k, dim=1).indices
    return float((top == torch.from_numpy(np.asarray(held_out))[:, None]).any(1).float().mean())

