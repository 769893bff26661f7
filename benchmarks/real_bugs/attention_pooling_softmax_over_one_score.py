"""Attention pooling over a set whose scores, shaped (batch, items, 1), are normalised with
a softmax over the last axis - an axis of one score: every weight is exactly 1, so the
"attention" sums all the items' values, whatever the scores say. The scoring layer
receives no gradient and the pooled vector cannot single out the item that matters.

Reported: "fixing softmax dim for attention pooling" -
https://github.com/catalyst-team/catalyst/pull/285 ("the attention pooling of the
LAMA-actor ... is broken. The softmax function is computed on the wrong dimension. In the
following picture the attention pooling yields 1 for each of the 4 observations"; the fix
computes the softmax over the observations). Here each sample is a set of 4 digits, one of
them flagged; the label is the flagged digit's class. Values are the items' features, as
in attention pooling. Fix: softmax over the items axis (dim=1).

Measured (300 steps, 512 held-out sets): accuracy 0.33 with the bug against 0.94 for the
fixed twin.
"""
import numpy as np
import torch
from torch import nn

from benchmarks.real_bugs._common import classification

TITLE = "fixing softmax dim for attention pooling"
LINK = "https://github.com/catalyst-team/catalyst/pull/285"
EXPECTED = ("SOFTMAX_OVER_ONE_UNIT",)
STEPS = 300
ITEMS = 4
BATCH_SIZE = 64


def sets(x, y, steps, seed=0):
    """``steps`` batches of (B, ITEMS, 65) sets - a digit's 64 pixels and a 0/1 flag - and
    the class of the flagged digit of each set."""
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        index = torch.from_numpy(rng.integers(0, len(x), (BATCH_SIZE, ITEMS)))
        flagged = torch.from_numpy(rng.integers(0, ITEMS, BATCH_SIZE))
        flags = nn.functional.one_hot(flagged, ITEMS).float().unsqueeze(-1)
        items = torch.cat([x[index], flags], dim=-1)
        yield items, y[index[torch.arange(BATCH_SIZE), flagged]]


class AttentionPooling(nn.Module):
    def __init__(self, features, fixed):
        super().__init__()
        self.fixed = fixed
        self.score = nn.Sequential(nn.Linear(features, 32), nn.Tanh(), nn.Linear(32, 1))

    def forward(self, items):
        scores = self.score(items)                          # (B, ITEMS, 1)
        # BUG (fixed=False): the softmax runs over the last axis, which holds one score
        weights = torch.softmax(scores, dim=1 if self.fixed else -1)
        return (weights * items).sum(dim=1)


def run(fixed=False, steps=STEPS, **watch):
    import nndebug as nd
    torch.manual_seed(0)
    x, y = classification()
    half = len(x) // 2
    model = nn.Sequential(AttentionPooling(65, fixed), nn.Linear(65, 64), nn.ReLU(),
                          nn.Linear(64, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for items, labels in sets(x[:half], y[:half], steps):
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(items), labels)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        items, labels = (torch.cat(parts) for parts in zip(*sets(x[half:], y[half:], 8, seed=1)))
        mon.accuracy = float((model(items).argmax(1) == labels).float().mean())
    return mon
