"""A stand-alone self-attention convolution creates its learned relative-position embeddings
(``rel_h``, ``rel_w``, added to the values of each 3x3 window) as new ``nn.Parameter``s
inside forward(): every call draws them afresh from randn, so they are never trained (the
optimizer holds the first pair, the forward uses a new random pair each time) and every
batch adds new unit-scale noise to the attention's values.

Reported: "rel_w and rel_h parameters" -
https://github.com/leaderj1001/Stand-Alone-Self-Attention/issues/2 ("You create these
parameters every time you pass through forward so theirs previous values are lost. I think
these parameters should be created once in __init__"; the author: "I will fix it"). Here a
convolution stem, one attention convolution (16 channels, 3x3 windows) and a linear head
classify the 8x8 digits, with Adam.
Measured on 500 held-out digits (seed 0, 200 steps): 83.2% accuracy with the embeddings
drawn in forward, 88.8% with them created once.
Fix: create rel_h and rel_w once, in __init__.
"""
import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "rel_w and rel_h parameters"
LINK = "https://github.com/leaderj1001/Stand-Alone-Self-Attention/issues/2"
EXPECTED = ("OPTIMIZER_MISSING_PARAMS", "UNREGISTERED_PARAMETERS")
STEPS = 200
HELD_OUT = 500
CHANNELS = 16
KERNEL = 3


class AttentionConv(nn.Module):
    def __init__(self, channels, kernel, fixed):
        super().__init__()
        self.fixed = fixed
        self.kernel = kernel
        if fixed:
            self.rel_h = nn.Parameter(torch.randn(channels // 2, 1, 1, kernel, 1))
            self.rel_w = nn.Parameter(torch.randn(channels // 2, 1, 1, 1, kernel))
        self.query = nn.Conv2d(channels, channels, 1, bias=False)
        self.key = nn.Conv2d(channels, channels, 1, bias=False)
        self.value = nn.Conv2d(channels, channels, 1, bias=False)

    def forward(self, x):
        batch, channels, height, width = x.shape
        if not self.fixed:               # BUG: new random embeddings on every call
            self.rel_h = nn.Parameter(torch.randn(channels // 2, 1, 1, self.kernel, 1))
            self.rel_w = nn.Parameter(torch.randn(channels // 2, 1, 1, 1, self.kernel))
        pad = self.kernel // 2
        padded = F.pad(x, [pad] * 4)
        q = self.query(x)
        k = self.key(padded).unfold(2, self.kernel, 1).unfold(3, self.kernel, 1)
        v = self.value(padded).unfold(2, self.kernel, 1).unfold(3, self.kernel, 1)
        v_h, v_w = v.split(channels // 2, dim=1)
        v = torch.cat((v_h + self.rel_h, v_w + self.rel_w), dim=1)
        k = k.reshape(batch, channels, height, width, -1)
        v = v.reshape(batch, channels, height, width, -1)
        weights = F.softmax(q[..., None] * k, dim=-1)
        return (weights * v).sum(-1)


class AttentionNet(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.stem = nn.Conv2d(1, CHANNELS, 3, padding=1)
        self.attention = AttentionConv(CHANNELS, KERNEL, fixed)
        self.head = nn.Linear(CHANNELS * 16, 10)

    def forward(self, x):
        h = torch.relu(self.attention(torch.relu(self.stem(x))))
        return self.head(F.avg_pool2d(h, 2).flatten(1))


def train(fixed=False, steps=STEPS, **watch):
    """The monitor and the trained model."""
    torch.manual_seed(0)
    x, y = classification(images=True)
    model = AttentionNet(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x[:-HELD_OUT], y[:-HELD_OUT], steps):
            optimizer.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon, model


def run(fixed=False, steps=STEPS, **watch):
    return train(fixed, steps, **watch)[0]


def held_out_accuracy(fixed):
    _, model = train(fixed)
    x, y = classification(images=True)
    with torch.no_grad():
        return (model(x[-HELD_OUT:]).argmax(1) == y[-HELD_OUT:]).float().mean().item()


if __name__ == "__main__":
    for fixed in (False, True):
        print("fixed" if fixed else "bug", held_out_accuracy(fixed))
