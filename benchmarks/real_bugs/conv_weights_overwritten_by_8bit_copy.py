"""An 8-bit quantized convolution that assigns its quantized weights to the parameter itself
(``self.weight.data = qweight``) instead of only using them in the forward pass: the float
weights are gone after the first batch, the optimizer's step is added to grid values and the
next forward rounds the result to the grid again - every update that is not a whole grid step
in size is lost or inflated, so the layer trains on rounded, mostly cancelled updates.

Reported: "Self.weight is not modified to qweight" -
https://github.com/eladhoffer/quantized.pytorch/issues/12 (the repository keeps
``self.weight`` in full precision and uses ``qweight`` only in the forward pass, so the
optimizer step is taken on the full-precision weights; "When I add self.weight=qweight to
QConv2d class's forward function, I see an accuracy drop of 15-20%" - "Does that mean we need
a copy of the full precision weights ... ?"). Here a small CNN on the 8x8 digits (two 3x3
convolutions of 16 channels, 8-bit per-tensor symmetric weights, batch norm and ReLU after
each), SGD with momentum 0.9, learning rate 1e-3 (a fine-tuning rate, as QAT usually runs).
Fix: leave ``self.weight`` alone and convolve with the quantized copy through the straight-
through estimator, ``w + (quantize(w) - w).detach()``.

Measured (300 steps, SGD 1e-3 momentum 0.9): the bug's loss 2.36 at the first step, 0.17
over the last 10, the fixed twin's 0.13; the second convolution's weights moved 0.0062 on
average against the twin's 0.0092 (a third of the training lost to rounding). At SGD 1e-2
the updates are mostly larger than a grid step and the gap shrinks (0.020 against 0.012).
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "Self.weight is not modified to qweight"
LINK = "https://github.com/eladhoffer/quantized.pytorch/issues/12"
EXPECTED = ("WEIGHTS_REQUANTIZED_IN_PLACE", "WEIGHTS_REWRITTEN_OUTSIDE_OPTIMIZER",
            "UPDATES_ROUNDED_AWAY")
STEPS = 300
BITS = 8


def quantize(w, bits=BITS):
    """Symmetric per-tensor fake quantization: round(w / s) * s, s = max|w| / (2^(b-1) - 1)."""
    levels = 2 ** (bits - 1) - 1
    scale = w.detach().abs().max().clamp_min(1e-8) / levels
    return torch.clamp(torch.round(w / scale), -levels, levels) * scale


class QConv2d(nn.Conv2d):
    def __init__(self, inputs, outputs, fixed):
        super().__init__(inputs, outputs, 3, padding=1, bias=False)
        self.fixed = fixed

    def forward(self, x):
        if self.fixed:
            weight = self.weight + (quantize(self.weight) - self.weight).detach()
        else:
            self.weight.data = quantize(self.weight.data)       # BUG: float weights lost
            weight = self.weight
        return self._conv_forward(x, weight, None)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification(images=True)
    model = nn.Sequential(QConv2d(1, 16, fixed), nn.BatchNorm2d(16), nn.ReLU(),
                          QConv2d(16, 16, fixed), nn.BatchNorm2d(16), nn.ReLU(),
                          nn.Flatten(), nn.Linear(16 * 64, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)
    return train_watched(model, optimizer, nn.CrossEntropyLoss(), batches(x, y, steps),
                         **watch)
