"""Hidden blocks with dropout run under ``torch.utils.checkpoint.checkpoint(...,
use_reentrant=True, preserve_rng_state=False)`` to save activation memory. The reentrant
checkpoint runs each block's forward without keeping its activations and re-runs it inside
backward; without the saved RNG state, dropout draws NEW masks in that re-run, so each
block's weights get the gradient of a network with other units dropped than the one whose
loss was computed - and the gradient passed further down is a mix of the two. Nothing
raises (the shapes all agree); the loss stalls well above the un-checkpointed run's.

Reported: "fix checkpoint" - https://github.com/ankanbhunia/PIDM/pull/66 (the diffusion
model's checkpoint helper called torch's checkpoint with ``preserve_rng_state=False``; the
PR: with dropout turned on "the dropout will definitely not work, because gradient flows
into wrong input cells", shown by a failed 300-epoch training, fixed by preserving the RNG
state and passing ``use_reentrant=True`` explicitly). Here a digits classifier: an input
layer, three checkpointed blocks (Linear, ReLU, Dropout(0.5)) of 96 units, a linear
classifier, Adam. Fix: ``preserve_rng_state=True`` (torch's default), nothing else.

Measured (400 steps, batch 64, 360 held-out digits, eval mode): seed 0, held-out accuracy
0.672 for the bug against 0.875 for the fixed twin; seeds shifted by 1000, 0.672 against 0.850.
"""
import torch
from torch import nn
from torch.utils.checkpoint import checkpoint

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._mem158 import accuracy, digits_split

TITLE = "fix checkpoint"
LINK = "https://github.com/ankanbhunia/PIDM/pull/66"
EXPECTED = ("RECOMPUTED_FORWARD_DIFFERS",)
STEPS = 400
WIDTH = 96


class Block(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.fixed = fixed
        self.body = nn.Sequential(nn.Linear(WIDTH, WIDTH), nn.ReLU(), nn.Dropout(0.5))

    def forward(self, h):
        # BUG (fixed=False): the recompute in backward draws fresh dropout masks
        return checkpoint(self.body, h, use_reentrant=True,
                              preserve_rng_state=self.fixed)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x_train, y_train, x_test, y_test = digits_split()
    model = nn.Sequential(nn.Linear(64, WIDTH), nn.ReLU(), Block(fixed), Block(fixed),
                          Block(fixed), nn.Linear(WIDTH, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x_train, y_train, steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(model, x_test, y_test)
    return mon
