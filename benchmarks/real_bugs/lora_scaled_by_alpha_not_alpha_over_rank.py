"""A hand-written LoRA layer that scales its update by alpha instead of alpha / rank: the
adapter's output, and every step it takes, comes out rank times larger than the
configuration means (x16 here, rank 16 and alpha 32). Adam moves A and B by about the
learning rate whatever the scale, so the function the adapter adds moves rank times too
fast: the fine-tuning that learns at scale 2 blows up at scale 32.

Reported: "LoRaLayer uses raw alpha instead of alpha/rank - 8x scaling error with default
settings" - https://github.com/Blaizzy/mlx-vlm/issues/845 (``LoRaLayer.__call__`` used
``self.alpha`` as the scaling factor instead of ``self.alpha / rank``, so the LoRA
contribution was 8x larger than PEFT's with alpha=16, rank=8, and "for sensitive
architectures ... this causes training in[stability]"; closed with the division by the
rank). Here an MLP pretrained on the digits 0-4 is fine-tuned on all ten digits with
rank-16 adapters (alpha 32) on both of its frozen layers, at Adam's 2e-2.

Measured (200 steps, Adam 2e-2, 297 held-out digits): the bug's loss falls from 8.3 and
then collapses to 2.0 near chance, held-out accuracy 0.09 (one class predicted); the fixed
twin, scaled by alpha / rank = 2, reaches loss 0.25 and accuracy 0.82. (At Adam 1e-2 the
bug still learns, 0.84 against 0.89: the damage is the rate the scale multiplies.)
"""
import math

import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, mlp, train_watched

TITLE = "LoRaLayer uses raw alpha instead of alpha/rank \u2014 8x scaling error with default settings"
LINK = "https://github.com/Blaizzy/mlx-vlm/issues/845"
EXPECTED = ("LR_TOO_HIGH",)
STEPS = 200
HELD_OUT = 297
RANK, ALPHA = 16, 32


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
    """A frozen nn.Linear plus scale * B @ A, written by hand."""

    def __init__(self, base, fixed, rank=RANK, alpha=ALPHA):
        super().__init__()
        self.base = base
        self.lora_A = nn.Parameter(torch.empty(rank, base.in_features))
        self.lora_B = nn.Parameter(torch.zeros(base.out_features, rank))
        nn.init.kaiming_uniform_(self.lora_A, a=math.sqrt(5))
        self.alpha, self.rank, self.fixed = alpha, rank, fixed

    def forward(self, x):
        scale = self.alpha / self.rank if self.fixed else self.alpha   # BUG: not / rank
        return self.base(x) + (x @ self.lora_A.t() @ self.lora_B.t()) * scale


def run(fixed=False, steps=STEPS, **watch):
    x, y = classification()
    train_x, train_y = x[:-HELD_OUT], y[:-HELD_OUT]
    model = pretrained_base(train_x, train_y)
    model.requires_grad_(False)
    torch.manual_seed(0)
    for i, layer in enumerate(model):
        if isinstance(layer, nn.Linear):
            model[i] = LoRALinear(layer, fixed)
    adapters = [p for n, p in model.named_parameters() if "lora" in n]
    optimizer = torch.optim.Adam(adapters, lr=2e-2)
    mon = train_watched(model, optimizer, nn.CrossEntropyLoss(),
                        batches(train_x, train_y, steps), **watch)
    with torch.no_grad():
        predicted = model(x[-HELD_OUT:]).argmax(1)
    mon.test_accuracy = round(float((predicted == y[-HELD_OUT:]).float().mean()), 3)
    return mon
