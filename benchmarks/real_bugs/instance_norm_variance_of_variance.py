"""A hand-written instance normalisation (U-GAT-IT's ILN / AdaILN layers) whose variance is
computed as ``torch.var(torch.var(x, dim=2, keepdim=True), dim=3, keepdim=True)``: the
variance over the columns of the variances of each row, not the variance over all
positions. Each image is then divided by a number that has little to do with its spread
(near zero for an image whose rows vary alike, so the features are blown up; large for an
image with a few busy rows), so the layer no longer gives every image the same scale and
the network has to learn around a normalisation that amplifies noise. The loss falls;
nothing errors.

Reported: "Wrong Instance/Layer norm evaluation" -
https://github.com/znxlwm/UGATIT-pytorch/issues/30 (instead of the variance over axes
[2, 3] the PyTorch port evaluates "variation of variation" in IN and "variation of
variation of variation" in LN, unlike the TensorFlow original; the author: "Thanks!").
Here a small paired translator on two-colour 8x8 digits (benchmarks/real_bugs/_i2i.py):
the input is the digit drawn in the first channel with its ink dimmed by a random factor
per image (0.2 to 1), the target the full-contrast digit in the second channel; two
conv - instance norm (affine) - ReLU blocks, conv, tanh; L1 loss. Fix: the variance over
both spatial axes, ``x.var(dim=(2, 3), keepdim=True)``.

Measured (300 Adam steps, batch 32, MSE in [-1, 1] units on the 297 held-out digits):
0.0047 for the bug, 0.0027 for the fixed twin (seed 0); seeds + 1000: 0.0049 vs 0.0037.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._i2i import HELD_OUT, digits_pm1, to_a, to_b

TITLE = "Wrong Instance/Layer norm evaluation"
LINK = "https://github.com/znxlwm/UGATIT-pytorch/issues/30"
EXPECTED = ("NORM_OVER_SINGLE_VALUE",)
STEPS = 300
EPS = 1e-5


class InstanceNorm(nn.Module):
    """U-GAT-IT-style instance normalisation with a learned per-channel gain and bias."""

    def __init__(self, channels, fixed):
        super().__init__()
        self.fixed = fixed
        self.gamma = nn.Parameter(torch.ones(1, channels, 1, 1))
        self.beta = nn.Parameter(torch.zeros(1, channels, 1, 1))

    def forward(self, x):
        mean = x.mean(dim=(2, 3), keepdim=True)
        if self.fixed:
            var = x.var(dim=(2, 3), keepdim=True)
        else:   # BUG: the variance of the rows' variances
            var = torch.var(torch.var(x, dim=2, keepdim=True), dim=3, keepdim=True)
        return (x - mean) / torch.sqrt(var + EPS) * self.gamma + self.beta


def translator(fixed, width=16):
    return nn.Sequential(nn.Conv2d(2, width, 3, padding=1), InstanceNorm(width, fixed), nn.ReLU(),
                         nn.Conv2d(width, width, 3, padding=1), InstanceNorm(width, fixed),
                         nn.ReLU(), nn.Conv2d(width, 2, 3, padding=1), nn.Tanh())


def dimmed(digits, gain):
    """The digits (in [-1, 1]) with their ink scaled by ``gain`` per image."""
    return (digits + 1) * gain.view(-1, 1, 1, 1) - 1


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x = digits_pm1()
    train, held_out = x[:-HELD_OUT], x[-HELD_OUT:]
    held_out_gain = 0.2 + 0.8 * torch.rand(len(held_out))
    model = translator(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(train), steps, 32, seed=0):
            digits = train[index]
            gain = 0.2 + 0.8 * torch.rand(len(digits))
            loss = F.l1_loss(model(to_a(dimmed(digits, gain))), to_b(to_a(digits)))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        out = model(to_a(dimmed(held_out, held_out_gain)))
        mon.held_out_error = F.mse_loss(out, to_b(to_a(held_out))).item()
    return mon
