"""Quantization-aware training that quantizes the weight tensor itself (``weight.data =
quantize(weight.data)`` in the forward pass) instead of keeping a float copy: the optimizer's
step is added to the 4-bit grid values, and the next forward rounds the sum back to the grid.
Every update smaller than half a quantization step is undone, so the quantized layers freeze.

Reported: "if train_with_fp_copy flag is false, does quant_aware training still works?" -
https://github.com/IntelLabs/distiller/issues/362 (the two settings' "performance differs a
lot"; the maintainer: quantization-aware training "only exists with a floating point copy of
the weights" - the straight-through gradient goes onto the fp32 weights, which are quantized
again at the next batch). Here a 64-64-10 MLP on the 8x8 digits with both weight matrices
fake-quantized to 4 bits (symmetric, per tensor, scale max|w| / 7), Adam 1e-3.
Fix: keep the float weights as the parameters and quantize a copy in the forward pass, with
the straight-through estimator ``w + (quantize(w) - w).detach()``.

Measured (300 steps, Adam 1e-3): the bug's loss 2.32 at the first step, 2.91 over the last
10 (the weight matrices stay on their first 4-bit grid; only the biases move); the fixed
twin's 0.33.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "if train_with_fp_copy flag is false, does quant_aware training still works?"
LINK = "https://github.com/IntelLabs/distiller/issues/362"
EXPECTED = ("WEIGHTS_REQUANTIZED_IN_PLACE", "UPDATES_ROUNDED_AWAY", "PARAMS_NOT_UPDATING")
STEPS = 300
BITS = 4


def quantize(w, bits=BITS):
    """Symmetric per-tensor fake quantization: round(w / s) * s, s = max|w| / (2^(b-1) - 1)."""
    levels = 2 ** (bits - 1) - 1
    scale = w.detach().abs().max().clamp_min(1e-8) / levels
    return torch.clamp(torch.round(w / scale), -levels, levels) * scale


class QuantLinear(nn.Linear):
    def __init__(self, inputs, outputs, fixed):
        super().__init__(inputs, outputs)
        self.fixed = fixed

    def forward(self, x):
        if self.fixed:
            weight = self.weight + (quantize(self.weight) - self.weight).detach()
        else:
            self.weight.data = quantize(self.weight.data)   # BUG: no float copy kept
            weight = self.weight
        return nn.functional.linear(x, weight, self.bias)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = nn.Sequential(QuantLinear(64, 64, fixed), nn.ReLU(), QuantLinear(64, 10, fixed))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    return train_watched(model, optimizer, nn.CrossEntropyLoss(), batches(x, y, steps),
                         **watch)
