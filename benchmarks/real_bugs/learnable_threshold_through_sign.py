"""A learnable threshold gates a feature map through ``torch.sign``:
``mask = (torch.sign(d - threshold) + 1) * 0.5``. The gradient of ``sign`` is zero
everywhere, so the threshold - declared as an ``nn.Parameter`` and handed to the optimizer -
receives an all-zero gradient on every step and never moves from its initial value.
Nothing errors; the rest of the network trains around whatever the initial threshold cuts
away.

Reported: "Inquiry About Gradient Flow in Learnable Threshold Implementation" -
https://github.com/Hiyuur/SR-TOD/issues/5 ("As ``torch.sign`` has zero gradients
everywhere ... this appears to block gradient flow to the ``learnable_thresh`` parameter,
effectively preventing it from being updated during training despite being declared as an
``nn.Parameter``"; the author: binarising with ``torch.where`` had warned them that the
gradient was blocked, it is the non-differentiable nature of the operation). Here a
difference-map gate on the digits: a hidden layer's activations are kept only where they
exceed a learnable per-unit threshold (started at 0.5), then a classifier. Fix: a straight-through surrogate - the same hard mask in the forward pass,
the gradient of a sigmoid in the backward pass - so the threshold learns.

Measured (300 steps, 297 held-out digits): the bug's thresholds never move (largest
change 0.0; 0.20 of the gate open at the end) while the layers around them compensate,
held-out accuracy 0.91; the fixed twin's thresholds move (largest change 0.77, 0.33 open),
0.90. The harm is a declared parameter that never learns, not (here) the accuracy.
"""
import torch
import torch.nn.functional as F
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "Inquiry About Gradient Flow in Learnable Threshold Implementation"
LINK = "https://github.com/Hiyuur/SR-TOD/issues/5"
EXPECTED = ("NO_GRADIENT",)
STEPS = 300
HELD_OUT = 297
HIDDEN = 64
START_THRESHOLD = 0.5
SURROGATE_TEMPERATURE = 0.1


class ThresholdGate(nn.Module):
    def __init__(self, width, straight_through):
        super().__init__()
        self.threshold = nn.Parameter(torch.full((width,), START_THRESHOLD))
        self.straight_through = straight_through
        self.open_fraction = None

    def forward(self, d):
        hard = (torch.sign(d - self.threshold) + 1) * 0.5      # BUG: sign's gradient is 0
        if self.straight_through:
            soft = torch.sigmoid((d - self.threshold) / SURROGATE_TEMPERATURE)
            hard = hard + soft - soft.detach()
        self.open_fraction = float(hard.detach().mean())
        return d * hard


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    gate = ThresholdGate(HIDDEN, straight_through=fixed)
    model = nn.Sequential(nn.Linear(64, HIDDEN), nn.ReLU(), gate, nn.Linear(HIDDEN, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    mon = train_watched(model, optimizer, nn.CrossEntropyLoss(),
                        batches(x[:-HELD_OUT], y[:-HELD_OUT], steps), **watch)
    with torch.no_grad():
        predicted = model(x[-HELD_OUT:]).argmax(1)
    mon.test_accuracy = round(float((predicted == y[-HELD_OUT:]).float().mean()), 3)
    mon.threshold_change = round(float((gate.threshold - START_THRESHOLD).abs().max()), 3)
    mon.open_fraction = round(gate.open_fraction, 2)
    return mon
