"""Blocks with dropout are run under activation checkpointing that does NOT restore the random
number generator before the recomputation: backward re-runs each block's forward to rebuild
its activations, dropout draws FRESH masks there, and the gradients are taken through a
network other than the one whose loss was computed - the output's gradient belongs to one
mask, the weights' gradients to another. No error; the loss stalls far above the fixed
run's and wanders.

Reported: "Gradient checkpointing + dropout causes loss divergence" -
https://github.com/openai/guided-diffusion/issues/167 ("The custom checkpoint helper in this
repo re-runs the forward pass during backprop without restoring the RNG state. Every
stochastic layer inside the block, like dropout, sees a different random mask on the
backward pass, so the gradients don't match the loss"; the same bug fixed in
allenai/OLMo-core#828, where turning checkpointing off "moved the loss" from 2.49 to 2.19).
Here a digits MLP with two checkpointed hidden blocks, each ending in ``Dropout(0.5)``,
under ``checkpoint(..., preserve_rng_state=False)`` (what such helpers amount to). Fix:
``preserve_rng_state=True`` (torch's default) or a helper that restores the RNG state.

Measured (400 steps, 360 held-out digits, eval mode): the bug's held-out accuracy 0.82, the
fixed twin's 0.89 (the same model without watch: mean training loss over the last 30 steps
0.92 against 0.14).
"""
import torch
from torch import nn
from torch.utils.checkpoint import checkpoint

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "Gradient checkpointing + dropout causes loss divergence"
LINK = "https://github.com/openai/guided-diffusion/issues/167"
EXPECTED = ("RECOMPUTED_FORWARD_DIFFERS",)
STEPS = 400
HELD_OUT = 360
WIDTH = 128


class Block(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.layers = nn.Sequential(nn.Linear(WIDTH, WIDTH), nn.ReLU(), nn.Dropout(0.5))
        self.fixed = fixed

    def forward(self, h):
        return checkpoint(self.layers, h, use_reentrant=False,
                          preserve_rng_state=self.fixed)   # BUG (fixed=False): new masks


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = nn.Sequential(nn.Linear(64, WIDTH), nn.ReLU(), Block(fixed), Block(fixed),
                          nn.Linear(WIDTH, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    mon = train_watched(model, optimizer, nn.CrossEntropyLoss(),
                        batches(x[:-HELD_OUT], y[:-HELD_OUT], steps), **watch)
    model.eval()
    with torch.no_grad():
        mon.accuracy = round(float((model(x[-HELD_OUT:]).argmax(1) == y[-HELD_OUT:])
                                   .float().mean()), 3)
    return mon
