"""Prefix tuning written by hand whose attention mask marks the learned virtual tokens with
zeros where the mask's own convention is 1 = attend, 0 = hidden: the prefix keys are
masked out of every softmax, every query gives them weight exactly zero, and the only
parameters being trained - the prefix keys and values - receive no gradient at all. The
loop runs, the loss is the frozen model's loss and stays there; the "tuned" model is the
pretrained one.

Reported: "Improve prefix handling, attention mask compatibility, and KV cache control" -
https://github.com/QwenLM/ParScale/pull/11 (in ParScale's prefix implementation the mask
columns for the prefix were filled with 0 in a mask whose 1 means "attend", so "virtual
prefix tokens [could not] properly participate in attention"; the pull request changes
the prefix mask values from 0 to 1). Here a one-layer attention classifier that reads the
8x8 digits as 8 row tokens is pretrained on the plain digits and then prefix-tuned (16
virtual key/value pairs, model frozen) on the mirrored digits, Adam 3e-2.

**Measured** (300 steps, 497 held-out digits): held-out accuracy on the mirrored digits
0.40 for the bug (the pretrained model's own, the prefix never moves) against 0.81 for the
fixed twin at seed 0, and 0.37 against 0.76 with every seed shifted by 1000.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._lora173 import accuracy, mirrored, split

TITLE = "Improve prefix handling, attention mask compatibility, and KV cache control"
LINK = "https://github.com/QwenLM/ParScale/pull/11"
EXPECTED = ("NO_GRADIENT",)
STEPS = 300
WIDTH, PREFIX = 32, 16


class RowAttention(nn.Module):
    """Rows of the image as tokens, one attention layer, mean pooling, a linear head; an
    optional learned prefix of keys and values every query may attend to."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Linear(8, WIDTH)
        self.position = nn.Parameter(torch.randn(8, WIDTH) * 0.1)
        self.q, self.k, self.v = (nn.Linear(WIDTH, WIDTH) for _ in range(3))
        self.ff = nn.Sequential(nn.Linear(WIDTH, 64), nn.ReLU(), nn.Linear(64, WIDTH))
        self.head = nn.Linear(WIDTH, 10)
        self.prefix_k = self.prefix_v = None
        self.prefix_mask_value = 1.0

    def forward(self, x):
        h = self.embed(x.reshape(-1, 8, 8)) + self.position
        q, k, v = self.q(h), self.k(h), self.v(h)
        mask = torch.ones(h.shape[0], 8)                 # 1 = attend, 0 = hidden
        if self.prefix_k is not None:
            n = h.shape[0]
            k = torch.cat([self.prefix_k.expand(n, -1, -1), k], 1)
            v = torch.cat([self.prefix_v.expand(n, -1, -1), v], 1)
            prefix_mask = torch.full((n, PREFIX), self.prefix_mask_value)
            mask = torch.cat([prefix_mask, mask], 1)
        scores = q @ k.transpose(1, 2) / WIDTH ** 0.5
        scores = scores.masked_fill(mask[:, None, :] == 0, float("-inf"))
        h = h + torch.softmax(scores, -1) @ v
        h = h + self.ff(h)
        return self.head(h.mean(1))


def pretrained(train_x, train_y):
    torch.manual_seed(1)
    model = RowAttention()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    for xb, yb in batches(train_x, train_y, 600, seed=1):
        optimizer.zero_grad()
        nn.functional.cross_entropy(model(xb), yb).backward()
        optimizer.step()
    return model


def run(fixed=False, steps=STEPS, **watch):
    train_x, train_y, test_x, test_y = split()
    model = pretrained(train_x, train_y)
    model.requires_grad_(False)
    torch.manual_seed(0)
    model.prefix_k = nn.Parameter(torch.randn(1, PREFIX, WIDTH) * 0.5)
    model.prefix_v = nn.Parameter(torch.randn(1, PREFIX, WIDTH) * 0.5)
    model.prefix_mask_value = 1.0 if fixed else 0.0     # BUG: 0 hides the prefix
    optimizer = torch.optim.Adam([model.prefix_k, model.prefix_v], lr=3e-2)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(mirrored(train_x), train_y, steps):
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(model, mirrored(test_x), test_y)
    mon.plain_accuracy = accuracy(model, test_x, test_y)
    return mon
