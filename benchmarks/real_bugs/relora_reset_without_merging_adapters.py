"""A hand-written ReLoRA loop (train low-rank adapters, every few hundred steps merge them
into the frozen weights and restart them from a fresh initialisation, so that a sum of
low-rank updates can build a high-rank one) whose restart resets the adapters WITHOUT
merging them first. Each restart silently throws away everything the adapters learned
in the cycle before: the frozen weights never change, and the model at the end is the
pretrained one plus the last cycle's adapter only. The loss falls in every cycle, jumps
back up at each restart, and falls again, which looks like ReLoRA's usual restart bump.

Reported: "ReLoRA prunes adapters without merging and can zero both factors on ties" -
https://github.com/MakazhanAlpamys/Soup/issues/693 (the ReLoRA callback's prune-and-reset
left the base weight untouched - max |delta| 0 - while the effective linear map moved by
an MSE of 142, against 8.8e-13 for merge-then-reset, so "the adapter's learned
contribution is discarded, not restarted"; the fix merges the adapters into the base
weights before pruning and resetting them, as the ReLoRA paper and Axolotl do). Here an
MLP pretrained on the plain digits is adapted to the mirrored digits with rank-4 adapters
(alpha 8) on both of its frozen layers, Adam 1e-2, restarting every 25 steps (the
optimizer state is reset with the adapters, in both runs).

**Measured** (200 steps, eight cycles, 497 held-out digits): held-out accuracy on the
mirrored digits 0.65 for the bug (what one 25-step cycle learns) against 0.90 for the
fixed twin at seed 0, and 0.66 against 0.89 with every seed shifted by 1000.
"""
import math

import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._lora173 import accuracy, mirrored, pretrained_base, split

TITLE = "ReLoRA prunes adapters without merging and can zero both factors on ties"
LINK = "https://github.com/MakazhanAlpamys/Soup/issues/693"
EXPECTED = ("ADAPTER_RESET_WITHOUT_MERGE",)
STEPS = 200
RANK, ALPHA, RESTART_EVERY = 4, 8, 25


class LoRALinear(nn.Module):
    """A frozen nn.Linear plus (alpha / rank) * B @ A, with ReLoRA's merge and restart."""

    def __init__(self, base):
        super().__init__()
        self.base = base
        self.lora_A = nn.Parameter(torch.empty(RANK, base.in_features))
        self.lora_B = nn.Parameter(torch.zeros(base.out_features, RANK))
        self.scale = ALPHA / RANK
        self.restart(merge=False)

    @torch.no_grad()
    def restart(self, merge):
        if merge:
            self.base.weight += self.scale * self.lora_B @ self.lora_A
        nn.init.kaiming_uniform_(self.lora_A, a=math.sqrt(5))
        nn.init.zeros_(self.lora_B)

    def forward(self, x):
        return self.base(x) + (x @ self.lora_A.t() @ self.lora_B.t()) * self.scale


def run(fixed=False, steps=STEPS, **watch):
    train_x, train_y, test_x, test_y = split()
    model = pretrained_base(train_x, train_y)
    model.requires_grad_(False)
    torch.manual_seed(0)
    for i, layer in enumerate(model):
        if isinstance(layer, nn.Linear):
            model[i] = LoRALinear(layer)
    layers = [m for m in model if isinstance(m, LoRALinear)]
    adapters = [p for n, p in model.named_parameters() if "lora" in n]
    optimizer = torch.optim.Adam(adapters, lr=1e-2)
    with nd.watch(model, optimizer, **watch) as mon:
        for step, (xb, yb) in enumerate(batches(mirrored(train_x), train_y, steps), 1):
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
            if step % RESTART_EVERY == 0 and step < steps:
                for layer in layers:
                    layer.restart(merge=fixed)     # BUG: fixed=False resets unmerged
                optimizer.state.clear()
    mon.held_out_accuracy = accuracy(model, mirrored(test_x), test_y)
    return mon
