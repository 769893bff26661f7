"""Quantisation-aware training meant for 2-bit weights whose layers quantise to 8 bits all
along: the layer computes its number of levels, ``bit_range = 2 ** num_bit - 1``, once in
its constructor (num_bit defaults to 8), and the helper that sets the wanted width
afterwards changes ``num_bit`` only. Training runs at 255 levels, so the network learns
weights that need 8 bits, the loss and accuracy look like those of a healthy QAT run, and
nothing errors - but the model exported at the 2 bits the run was for (the width its
layers report) was never trained for that grid and loses most of its accuracy.

Reported: "The code actually does not quantize in the right way when the quant_bit is not
8" - https://github.com/ricky40403/DSQ/issues/10 (``set_quanbit()`` sets ``num_bit`` on
every DSQConv but leaves ``bit_range``, initialised for the default 8 bits, unchanged, so
for any other width the weights are not quantised at that width; the fix proposed is to
reset ``bit_range`` in ``set_quanbit()`` too). Here an MLP 64-32-32-10 on the digits
whose layers fake-quantise their weights with a learned clipping range [lower, upper]
(initialised at each matrix's min and max, as DSQ does) and a straight-through round,
built at the default 8 bits and set to 2 bits by such a helper; Adam at 1e-3. The
deployed model quantises each matrix to the 2 bits ``num_bit`` says. Fix: the helper
recomputes ``bit_range`` with ``num_bit``.

Measured (600 steps; held-out accuracy on 397 digits of the model quantised to the 2
bits it was set to): seed 0, 0.799 for the bug against 0.942 for the fixed twin; seeds
shifted by 1000, 0.801 against 0.947. On the 8-bit grid it actually trained on, the bug
run scores 0.940 and 0.945 (``training_grid_accuracy``): every number the run shows looks
like the twin's.
"""
import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._q165 import accuracy, digits_split

TITLE = ("The code actually does not quantize in the right way when the quant_bit is not 8")
LINK = "https://github.com/ricky40403/DSQ/issues/10"
EXPECTED = ("QUANTIZER_LEVELS_UNLIKE_BIT_WIDTH",)
STEPS = 600
WANTED_BITS = 2
WIDTH = 32


class QuantLinear(nn.Linear):
    def __init__(self, inputs, outputs, num_bit=8):
        super().__init__(inputs, outputs)
        self.num_bit = num_bit
        self.bit_range = 2 ** num_bit - 1          # levels - 1, fixed at construction
        w = self.weight.detach()
        self.lower = nn.Parameter(w.min().clone())
        self.upper = nn.Parameter(w.max().clone())

    def quantized_weight(self, levels=None):
        levels = self.bit_range if levels is None else levels
        clipped = torch.maximum(torch.minimum(self.weight, self.upper), self.lower)
        delta = (self.upper - self.lower) / levels
        code = (clipped - self.lower) / delta
        code = code + (torch.round(code) - code).detach()        # straight-through round
        return code * delta + self.lower

    def forward(self, x):
        return F.linear(x, self.quantized_weight(), self.bias)


def set_bits(model, num_bit, fixed):
    for module in model.modules():
        if isinstance(module, QuantLinear):
            module.num_bit = num_bit
            if fixed:
                module.bit_range = 2 ** num_bit - 1
            # BUG when not fixed: bit_range still counts the 8-bit levels


def deployed_accuracy(model, x, y):
    """Accuracy with every matrix quantised to the width its layer reports (num_bit)."""
    saved = {}
    with torch.no_grad():
        for module in model.modules():
            if isinstance(module, QuantLinear):
                saved[module] = module.bit_range
                module.bit_range = 2 ** module.num_bit - 1
        result = accuracy(model, x, y)
        for module, levels in saved.items():
            module.bit_range = levels
    return result


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_held, y_held = digits_split(0)
    model = nn.Sequential(QuantLinear(64, WIDTH), nn.ReLU(),
                          QuantLinear(WIDTH, WIDTH), nn.ReLU(), QuantLinear(WIDTH, 10))
    set_bits(model, WANTED_BITS, fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.training_grid_accuracy = accuracy(model, x_held, y_held)
    mon.held_out_accuracy = deployed_accuracy(model, x_held, y_held)
    return mon
