"""Hidden blocks with randomized leaky ReLUs (``nn.RReLU``) run under non-reentrant activation
checkpointing. In training mode RReLU draws a random negative slope per element and saves
that "noise" tensor for backward; under ``checkpoint(..., use_reentrant=False)`` the saved
noise is packed before RReLU has written it, so backward multiplies the gradients by
whatever the freshly allocated memory held. The forward pass is bit-exact; the gradients
of every layer below the first RReLU are garbage (here up to ~1e10 times too large, from
one step to the next), and the run is wrecked without an error.

Reported: "Silent wrong gradients: nn.RReLU under non-reentrant checkpointing saves
uninitialized noise" - https://github.com/pytorch/pytorch/issues/193671 ("produces
**silently wrong gradients** under torch.utils.checkpoint.checkpoint(...,
use_reentrant=False) ... The forward output is bit-exact, so nothing looks wrong until
gradients are compared"; labelled module: correctness (silent)). Here a digits MLP (a Linear + RReLU stem) with
two checkpointed Linear + RReLU blocks under Adam. Fix: do not checkpoint the RReLU (or use the
reentrant variant, or a deterministic activation).

Measured (200 steps, 360 held-out digits, eval mode): the bug's held-out accuracy 0.10 (chance),
the fixed twin's 0.84.
"""
import torch
from torch import nn
from torch.utils.checkpoint import checkpoint

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = ("Silent wrong gradients: nn.RReLU under non-reentrant checkpointing saves "
         "uninitialized noise")
LINK = "https://github.com/pytorch/pytorch/issues/193671"
EXPECTED = ("RECOMPUTED_FORWARD_DIFFERS",)
STEPS = 200
HELD_OUT = 360
WIDTH = 64


class Block(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.layers = nn.Sequential(nn.Linear(WIDTH, WIDTH), nn.RReLU())
        self.fixed = fixed

    def forward(self, h):
        if self.fixed:
            return self.layers(h)
        return checkpoint(self.layers, h, use_reentrant=False)   # BUG: RReLU checkpointed


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = nn.Sequential(nn.Linear(64, WIDTH), nn.RReLU(), Block(fixed), Block(fixed),
                          nn.Linear(WIDTH, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    mon = train_watched(model, optimizer, nn.CrossEntropyLoss(),
                        batches(x[:-HELD_OUT], y[:-HELD_OUT], steps), **watch)
    model.eval()
    with torch.no_grad():
        mon.accuracy = round(float((model(x[-HELD_OUT:]).argmax(1) == y[-HELD_OUT:])
                                   .float().mean()), 3)
    return mon
