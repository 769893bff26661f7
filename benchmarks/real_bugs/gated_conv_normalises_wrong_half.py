"""A gated convolution (GLU) with batch norm whose two normalisations are wired crosswise:
``w = batch_norm(v)`` and then ``v = batch_norm(w)``. The gate's convolution output ``w`` is
overwritten before anything reads it, so the gate is computed from the value path and the
gate convolution never takes part: its weights get no gradient, and each layer is left
with half its filters.

Reported: "Question about Batch Normalization?" - https://github.com/chqiwang/convseg/issues/5
("w = layers.batch_norm(inputs=v, ...) v = layers.batch_norm(inputs=w, ...) Where w is
computed by the inputs=v and v is computed by the inputs=w. Is there a mistake?"; the
author: "yes! It's a mistake. thanks for point it out."). Here the digits are read as
sequences of 8 rows of 8 pixels by two such gated convolution layers (narrow: 2 channels)
and a linear head. Fix: ``w = bn_w(w)``, ``v = bn_v(v)``.

Measured (200 steps, 360 held-out digits, evaluated in eval mode): accuracy 0.79 with the
bug against 0.83 for the fixed twin (a modest harm: with 4 channels a layer it was 0.86
against 0.87, so the narrow layers are what make the lost half count).
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification

TITLE = "Question about Batch Normalization?"
LINK = "https://github.com/chqiwang/convseg/issues/5"
EXPECTED = ("NO_GRADIENT",)
STEPS = 200
CHANNELS = 2
HELD_OUT = 360


class GatedConv(nn.Module):
    def __init__(self, inputs, channels, fixed):
        super().__init__()
        self.fixed = fixed
        self.conv_w = nn.Conv1d(inputs, channels, 3, padding=1)
        self.conv_v = nn.Conv1d(inputs, channels, 3, padding=1)
        self.bn_w = nn.BatchNorm1d(channels)
        self.bn_v = nn.BatchNorm1d(channels)

    def forward(self, x):
        w, v = self.conv_w(x), self.conv_v(x)
        if self.fixed:
            w, v = self.bn_w(w), self.bn_v(v)
        else:
            w = self.bn_w(v)     # BUG: the gate normalises the value path's output ...
            v = self.bn_v(w)     # ... and the value path normalises that
        return v * torch.sigmoid(w)


def run(fixed=False, steps=STEPS, **watch):
    import nndebug as nd
    torch.manual_seed(0)
    x, y = classification()
    rows = x.view(-1, 8, 8).transpose(1, 2)          # (N, 8 pixels as channels, 8 rows)
    model = nn.Sequential(GatedConv(8, CHANNELS, fixed), GatedConv(CHANNELS, CHANNELS, fixed),
                          nn.Flatten(), nn.Linear(CHANNELS * 8, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(rows[:-HELD_OUT], y[:-HELD_OUT], steps):
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        found = model(rows[-HELD_OUT:]).argmax(1)
        mon.accuracy = float((found == y[-HELD_OUT:]).float().mean())
    return mon
