"""A LoRA-versus-DoRA comparison written by hand whose DoRA training loop builds its
optimizer from the LoRA model's parameters (a copy-paste of the loop above it): the
DoRA model's forward and backward run, its adapter and magnitude parameters receive
gradients, and ``optimizer.step()`` moves nothing of it - the optimizer holds the other
model's parameters, whose gradients were cleared. The loop runs and prints a loss; the
"DoRA" result is the frozen pretrained model's, and DoRA looks far worse than LoRA.

Reported: "Update lora-dora-mlp.ipynb" - https://github.com/rasbt/dora-from-scratch/pull/1
(the notebook trained the DoRA model with ``torch.optim.Adam(model_lora.parameters())``;
the pull request changes it to ``model_dora.parameters()``, and the author answered "This
explains why I got some weird results"). Here an MLP pretrained on the plain digits is
copied twice: one copy is adapted to the mirrored digits with rank-4 LoRA layers, the
other with rank-4 DoRA layers (a trainable per-output magnitude times the column-
normalised W + (alpha / rank) B A), each on both of its frozen layers, Adam 1e-2; the
DoRA loop is the one watched.

**Measured** (150 steps per loop, 497 held-out digits): held-out accuracy of the DoRA
model on the mirrored digits 0.47 for the bug (the pretrained model's own) against 0.89
for the fixed twin at seed 0, and 0.44 against 0.88 with every seed shifted by 1000.
"""
import copy
import math

import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._lora173 import accuracy, mirrored, pretrained_base, split

TITLE = "Update lora-dora-mlp.ipynb"
LINK = "https://github.com/rasbt/dora-from-scratch/pull/1"
EXPECTED = ("OPTIMIZER_MISSING_PARAMS",)
STEPS = 150
RANK, ALPHA = 4, 8


class LoRALinear(nn.Module):
    def __init__(self, base):
        super().__init__()
        self.base = base
        self.lora_A = nn.Parameter(torch.empty(RANK, base.in_features))
        self.lora_B = nn.Parameter(torch.zeros(base.out_features, RANK))
        nn.init.kaiming_uniform_(self.lora_A, a=math.sqrt(5))
        self.scale = ALPHA / RANK

    def delta(self):
        return self.scale * self.lora_B @ self.lora_A

    def forward(self, x):
        return self.base(x) + x @ self.delta().t()


class DoRALinear(LoRALinear):
    """magnitude * (W + delta) / ||W + delta|| (norm of each output row), plus the bias."""

    def __init__(self, base):
        super().__init__(base)
        self.magnitude = nn.Parameter(base.weight.detach().norm(dim=1, keepdim=True))

    def forward(self, x):
        weight = self.base.weight + self.delta()
        weight = self.magnitude * weight / weight.norm(dim=1, keepdim=True)
        return nn.functional.linear(x, weight, self.base.bias)


def adapted(base, kind):
    model = copy.deepcopy(base)
    for i, layer in enumerate(model):
        if isinstance(layer, nn.Linear):
            model[i] = kind(layer)
    return model


def train(model, optimizer, data, mon=None):
    for xb, yb in data:
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(xb), yb)
        loss.backward()
        optimizer.step()
        if mon is not None:
            mon.step(loss)


def run(fixed=False, steps=STEPS, **watch):
    train_x, train_y, test_x, test_y = split()
    base = pretrained_base(train_x, train_y)
    base.requires_grad_(False)
    torch.manual_seed(0)
    model_lora = adapted(base, LoRALinear)
    model_dora = adapted(base, DoRALinear)
    train(model_lora, torch.optim.Adam(model_lora.parameters(), lr=1e-2),
          batches(mirrored(train_x), train_y, steps))
    # BUG: the DoRA loop's optimizer holds the LoRA model's parameters
    optimizer = torch.optim.Adam((model_dora if fixed else model_lora).parameters(), lr=1e-2)
    with nd.watch(model_dora, optimizer, **watch) as mon:
        train(model_dora, optimizer, batches(mirrored(train_x), train_y, steps), mon)
    mon.held_out_accuracy = accuracy(model_dora, mirrored(test_x), test_y)
    mon.lora_held_out_accuracy = accuracy(model_lora, mirrored(test_x), test_y)
    return mon
