"""A transformer block of a hand-built vision transformer whose feed-forward branch is
joined to the residual stream with ``*`` instead of ``+``: ``x = x * mlp(norm(x))``. The
block no longer adds a correction to what it was given, it rescales every feature by a
number the MLP computes from it - a gate with no path around it, so the stream shrinks or
blows up from block to block and the gradient to earlier layers goes through the product.
Nothing fails; the network trains worse.

Reported: "a questione about the code in maxvit.py" -
https://github.com/ChristophReich1996/MaxViT/issues/8 ("there is a skip-connection in block
attention and grid attention, so may be we should use 'output = output +
self.drop_path(self.mlp(self.norm_2(output)))', rather than '*'"; the author: "Ohh yees,
that is a severe bug", fixed). Here a 4-block pre-norm ViT on the 8x8 digits cut into 16
patches of 2x2, read at its class token. Fix: ``x = x + mlp(norm(x))``.

Measured (200 steps, 397 held-out digits): test accuracy 0.30 against 0.90 for the fixed
twin at seed 0, 0.71 against 0.81 with seeds shifted by 1000.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched
from benchmarks.real_bugs._vision import patches

TITLE = "a questione about the code in maxvit.py"
LINK = "https://github.com/ChristophReich1996/MaxViT/issues/8"
EXPECTED = ("RESIDUAL_MULTIPLIED",)
STEPS = 200
HELD_OUT = 397
PATCH = 2


class Block(nn.Module):
    def __init__(self, dim, fixed, heads=4):
        super().__init__()
        self.fixed = fixed
        self.norm_1, self.norm_2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.attention = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.mlp = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))

    def forward(self, x):
        h = self.norm_1(x)
        x = x + self.attention(h, h, h, need_weights=False)[0]
        if self.fixed:
            return x + self.mlp(self.norm_2(x))
        return x * self.mlp(self.norm_2(x))        # BUG: the skip joined with '*'


class ViT(nn.Module):
    def __init__(self, fixed, dim=32, tokens=16, depth=4):
        super().__init__()
        self.embed = nn.Linear(PATCH * PATCH, dim)
        self.class_token = nn.Parameter(torch.zeros(1, 1, dim))
        self.position = nn.Parameter(torch.randn(1, tokens + 1, dim) * 0.02)
        self.blocks = nn.Sequential(*[Block(dim, fixed) for _ in range(depth)])
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, 10)

    def forward(self, images):
        tokens = self.embed(patches(images, PATCH))
        cls = self.class_token.expand(len(tokens), -1, -1)
        tokens = torch.cat([cls, tokens], dim=1) + self.position
        return self.head(self.norm(self.blocks(tokens))[:, 0])


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification(images=True)
    model = ViT(fixed)
    optimizer = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=0.05)
    mon = train_watched(model, optimizer, nn.CrossEntropyLoss(),
                        batches(x[:-HELD_OUT], y[:-HELD_OUT], steps), **watch)
    with torch.no_grad():
        guess = model(x[-HELD_OUT:]).argmax(1)
    mon.accuracy = round(float((guess == y[-HELD_OUT:]).float().mean()), 3)
    return mon
