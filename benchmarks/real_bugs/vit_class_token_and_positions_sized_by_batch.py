"""A vision transformer written by hand whose class token and position embedding are built
with the batch size as their first axis, ``nn.Parameter(torch.randn(batch_size, 1, dim))``
each: sample b of every batch gets class token b, and the position "embedding" is one
vector per batch slot, added alike to every patch of that sample - no patch learns where it
is, and what the model computes for an image depends on the slot it lands in.

Reported: "Incorrect [class] token and Positional embedding" -
https://github.com/ahmadchalhoub/research_implementations/issues/2 ("the class_token and
pos_embedding are both random init from with batch dimension, which makes them different
across each sample in the batch ... The correct way should be init them with batch_size of
1 then broadcast to the batch dim"). Here a 2-layer ViT on the 8x8 digits cut into 16
patches of 2x2 pixels, read at its class token (batches of 64, full batches only, as the
reported training loop needs). Fix: a (1, 1, dim) class token expanded over the batch and a
(1, patches + 1, dim) position embedding.

Measured (seed 0, 200 steps, 384 held-out digits, as run() scores them): test accuracy 0.13
(about chance; the training loss stays near 2.30) against 0.88 for the fixed twin.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched
from benchmarks.real_bugs._vision import encoder, patches

TITLE = "Incorrect [class] token and Positional embedding"
LINK = "https://github.com/ahmadchalhoub/research_implementations/issues/2"
EXPECTED = ("BATCH_MIXING", "POSITIONS_IGNORED")
STEPS = 200
BATCH_SIZE = 64
HELD_OUT = 384
PATCH = 2


class ViT(nn.Module):
    def __init__(self, fixed, dim=32, tokens=16):
        super().__init__()
        self.embed = nn.Linear(PATCH * PATCH, dim)
        if fixed:
            self.class_token = nn.Parameter(torch.randn(1, 1, dim))
            self.pos_embedding = nn.Parameter(torch.randn(1, tokens + 1, dim))
        else:                                   # BUG: one class token / position per slot
            self.class_token = nn.Parameter(torch.randn(BATCH_SIZE, 1, dim))
            self.pos_embedding = nn.Parameter(torch.randn(BATCH_SIZE, 1, dim))
        self.encoder = encoder(dim)
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, 10)

    def forward(self, images):
        tokens = self.embed(patches(images, PATCH))
        cls = self.class_token.expand(len(tokens), -1, -1)
        tokens = torch.cat([cls, tokens], dim=1) + self.pos_embedding
        return self.head(self.norm(self.encoder(tokens))[:, 0])


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification(images=True)
    model = ViT(fixed)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.05)
    mon = train_watched(model, optimizer, nn.CrossEntropyLoss(),
                        batches(x[:-HELD_OUT], y[:-HELD_OUT], steps, BATCH_SIZE), **watch)
    with torch.no_grad():
        right = sum(int((model(xb).argmax(1) == yb).sum())
                    for xb, yb in zip(x[-HELD_OUT:].split(BATCH_SIZE),
                                      y[-HELD_OUT:].split(BATCH_SIZE)))
    mon.accuracy = round(right / HELD_OUT, 3)
    return mon
