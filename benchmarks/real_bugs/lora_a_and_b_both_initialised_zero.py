"""LoRA adapters whose A and B factors both start at zero: the adapter adds s * B @ A to a
frozen layer, the gradient of B is proportional to A and the gradient of A to B, so with
both zero neither ever gets a nonzero gradient and the adapters never train. LoRA means B
(only) to start at zero, so that the adapted model starts as the pretrained one, and A at
random, so that B's gradient is not zero.

Reported: "fix lora initialization problem. Original method leads lora-A initialization all
zeros --> No training" - https://github.com/nvidia-cosmos/cosmos-predict2.5/pull/15 (the
LoRA layers were added before the model's weight initialisation ran, which zero-filled
lora_A as well as lora_B; the fix adds the LoRA layers after init_weights so A keeps its
random draw). Here an MLP pretrained on the digits 0-4 is fine-tuned on all ten digits
with rank-8 LoRA adapters on both of its frozen layers; the model's init routine, meant to
zero each adapter's B, zeroes every LoRA factor.

Measured (200 steps, Adam 1e-2, 297 held-out digits): the bug's loss stays at the
pretrained model's (8.3 at the first step, 7.7 at the last: only the batches change),
held-out accuracy 0.46 (the pretrained model knows 0-4 only); the fixed twin, lora_A left
at its random draw, reaches loss 0.09 and accuracy 0.86.
"""
import math

import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, mlp, train_watched

TITLE = ("fix lora initialization problem. Original method leads lora-A initialization all "
         "zeros --> No training")
LINK = "https://github.com/nvidia-cosmos/cosmos-predict2.5/pull/15"
EXPECTED = ("NO_GRADIENT", "SYMMETRIC_INIT")
STEPS = 200
HELD_OUT = 297
RANK, ALPHA = 8, 16


def pretrained_base(x, y):
    """The model to adapt: an MLP trained on the digits 0-4 only."""
    torch.manual_seed(1)
    base = mlp()
    optimizer = torch.optim.Adam(base.parameters(), lr=1e-2)
    seen = y < 5
    for xb, yb in batches(x[seen], y[seen], 150, seed=1):
        optimizer.zero_grad()
        nn.functional.cross_entropy(base(xb), yb).backward()
        optimizer.step()
    return base


class LoRALinear(nn.Module):
    """A frozen nn.Linear plus (alpha / r) * B @ A, written by hand."""

    def __init__(self, base, rank=RANK, alpha=ALPHA):
        super().__init__()
        self.base = base
        self.lora_A = nn.Parameter(torch.empty(rank, base.in_features))
        self.lora_B = nn.Parameter(torch.empty(base.out_features, rank))
        self.scaling = alpha / rank
        nn.init.kaiming_uniform_(self.lora_A, a=math.sqrt(5))
        nn.init.zeros_(self.lora_B)

    def forward(self, x):
        return self.base(x) + (x @ self.lora_A.t() @ self.lora_B.t()) * self.scaling


def add_lora(model):
    for i, layer in enumerate(model):
        if isinstance(layer, nn.Linear):
            model[i] = LoRALinear(layer)
    return model


def init_weights(model, fixed):
    """The model's own init routine: the adapters must start as a no-op."""
    for name, p in model.named_parameters():
        if fixed and name.endswith("lora_B"):
            nn.init.zeros_(p)
        elif not fixed and "lora" in name:       # BUG: zeroes lora_A as well as lora_B
            nn.init.zeros_(p)


def run(fixed=False, steps=STEPS, **watch):
    x, y = classification()
    train_x, train_y = x[:-HELD_OUT], y[:-HELD_OUT]
    model = pretrained_base(train_x, train_y)
    model.requires_grad_(False)
    torch.manual_seed(0)
    add_lora(model)
    init_weights(model, fixed)
    adapters = [p for n, p in model.named_parameters() if "lora" in n]
    optimizer = torch.optim.Adam(adapters, lr=1e-2)
    mon = train_watched(model, optimizer, nn.CrossEntropyLoss(),
                        batches(train_x, train_y, steps), **watch)
    with torch.no_grad():
        predicted = model(x[-HELD_OUT:]).argmax(1)
    mon.test_accuracy = round(float((predicted == y[-HELD_OUT:]).float().mean()), 3)
    return mon
