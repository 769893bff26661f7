"""The first layer (an embedding taken as pretrained) is frozen to save memory and time, and
the blocks after it are run under reentrant gradient checkpointing. A reentrant checkpoint
gives its block a gradient only when one of the block's INPUTS requires one; the frozen
layer's output does not, so no checkpointed block ever receives a gradient - every hidden
block keeps its random initial weights, and only the head after the last block trains.

Reported: "gradient checkpointing disables requires_grad when freezing part of models (fix
with use_reentrant=False)" - https://github.com/huggingface/transformers/issues/21381 ("When
freezing the first layers of a model (e.g. including embeddings) *and* using
gradient-checkpointing, **all** gradient calculation will be disabled"; the fix adopted:
``use_reentrant=False``, or make the embeddings' output require grad). Here a digits model: a
frozen input layer loaded from a short pretraining, three hidden blocks under
``checkpoint(..., use_reentrant=True)``, and a trainable head. Fix: ``use_reentrant=False``.

Measured (200 steps, 360 held-out digits): the bug's held-out accuracy 0.72 (the three
blocks never move), the fixed twin's 0.86.
"""
import torch
from torch import nn
from torch.utils.checkpoint import checkpoint

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = ("gradient checkpointing disables requires_grad when freezing part of models "
         "(fix with use_reentrant=False)")
LINK = "https://github.com/huggingface/transformers/issues/21381"
EXPECTED = ("NO_GRADIENT",)
STEPS = 200
HELD_OUT = 360
WIDTH = 32
PRETRAIN_STEPS = 100


class Model(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.embed = nn.Linear(64, WIDTH)
        self.blocks = nn.ModuleList(nn.Sequential(nn.Linear(WIDTH, WIDTH), nn.Tanh())
                                    for _ in range(3))
        self.head = nn.Linear(WIDTH, 10)
        self.reentrant = not fixed

    def forward(self, x):
        h = self.embed(x)
        for block in self.blocks:
            h = checkpoint(block, h, use_reentrant=self.reentrant)   # BUG: reentrant
        return self.head(h)


def pretrained_embedding(x, y):
    """The embedding as a pretraining run left it: the first layer of a small classifier
    trained for PRETRAIN_STEPS steps on the same digits (its weights, loaded below)."""
    net = nn.Sequential(nn.Linear(64, WIDTH), nn.Tanh(), nn.Linear(WIDTH, 10))
    optimizer = torch.optim.Adam(net.parameters(), lr=2e-3)
    for xb, yb in batches(x, y, PRETRAIN_STEPS, seed=1):
        optimizer.zero_grad()
        nn.functional.cross_entropy(net(xb), yb).backward()
        optimizer.step()
    return net[0].state_dict()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = Model(fixed)
    model.embed.load_state_dict(pretrained_embedding(x[:-HELD_OUT], y[:-HELD_OUT]))
    model.embed.requires_grad_(False)                   # frozen, as intended
    optimizer = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=2e-3)
    mon = train_watched(model, optimizer, nn.CrossEntropyLoss(),
                        batches(x[:-HELD_OUT], y[:-HELD_OUT], steps), **watch)
    with torch.no_grad():
        mon.accuracy = round(float((model(x[-HELD_OUT:]).argmax(1) == y[-HELD_OUT:])
                                   .float().mean()), 3)
    return mon
