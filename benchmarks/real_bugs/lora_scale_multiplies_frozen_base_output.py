"""A hand-written LoCon/LoRA layer that applies its dropout and its ``multiplier * scale``
(alpha / rank) to the whole output, the frozen layer's included, instead of to the
low-rank delta alone: ``dropout(base(x) + up(down(x))) * multiplier * scale``. With alpha 1
and rank 8 every adapted layer's pretrained output is shrunk eight times and dropped out
at random before the adapter has learned anything, so the fine-tuning starts from a broken
model and spends its steps repairing it; nothing fails and the loss falls.

Reported: "Update locon.py" - https://github.com/KohakuBlueleaf/LyCORIS/pull/26 ("the
scaling and multiplier was applied to the original output, which disturbed the original
model": in the CP branch of LoCon's forward the dropout wrapped the original output plus
the delta and the scale multiplied both; the merged fix returns the original output plus
the dropped-out delta times multiplier and scale, as the non-CP branch already did).
Here an MLP pretrained on the plain digits (0.93 held-out accuracy) is adapted to the
mirrored digits (0.47 before adapting) with rank-8 adapters, alpha 1, dropout 0.1, on both
of its frozen layers, Adam 1e-2.

**Measured** (150 steps, 497 held-out digits): held-out accuracy on the mirrored digits
0.73 for the bug against 0.82 for the fixed twin at seed 0, 0.76 against 0.84 with every
seed shifted by 1000; on the plain digits the adapted model keeps 0.48 against 0.69 (seed
0) and 0.41 against 0.69 (shift 1000).
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._lora173 import accuracy, mirrored, pretrained_base, split

TITLE = "Update locon.py"
LINK = "https://github.com/KohakuBlueleaf/LyCORIS/pull/26"
EXPECTED = ("ADAPTER_SCALES_FROZEN_OUTPUT",)
STEPS = 150
RANK, ALPHA, MULTIPLIER, DROPOUT = 8, 1.0, 1.0, 0.1


class LoConLinear(nn.Module):
    """A frozen nn.Linear plus a down/up low-rank delta (up starts at zero)."""

    def __init__(self, base, fixed):
        super().__init__()
        self.base, self.fixed = base, fixed
        self.down = nn.Linear(base.in_features, RANK, bias=False)
        self.up = nn.Linear(RANK, base.out_features, bias=False)
        nn.init.zeros_(self.up.weight)
        self.dropout = nn.Dropout(DROPOUT)
        self.scale = ALPHA / RANK

    def forward(self, x):
        delta = self.up(self.down(x))
        if self.fixed:
            return self.base(x) + self.dropout(delta) * MULTIPLIER * self.scale
        return self.dropout(self.base(x) + delta) * MULTIPLIER * self.scale   # BUG


def run(fixed=False, steps=STEPS, **watch):
    train_x, train_y, test_x, test_y = split()
    model = pretrained_base(train_x, train_y)
    model.requires_grad_(False)
    torch.manual_seed(0)
    for i, layer in enumerate(model):
        if isinstance(layer, nn.Linear):
            model[i] = LoConLinear(layer, fixed)
    adapters = [p for n, p in model.named_parameters() if n.split(".")[1] in ("down", "up")]
    optimizer = torch.optim.Adam(adapters, lr=1e-2)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(mirrored(train_x), train_y, steps):
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(model, mirrored(test_x), test_y)
    mon.plain_accuracy = accuracy(model, test_x, test_y)
    return mon
