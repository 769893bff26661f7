"""Precise measurements cast to bfloat16 with the rest of the batch before the model sees
them: bfloat16 keeps 8 significant bits, so a mass-to-charge value near 600 can only be
600, 604, 608, ... - every difference finer than 4 is rounded away before the model's own
scaling (``(mz - 600) / 4``) could bring it into a range where bfloat16 is fine. The
model trains, on inputs that hold one bit of the signal each.

Reported: "Add float16 and bfloat16 support in sinusoidal encodings." -
https://github.com/wfondrie/depthcharge/pull/82 ("the mz resolution of MS experiments can
not be faithfully represented using bfloat16 and float16 inputs (i.e., `mz_array` inputs
to `SpectrumTransformerEncoder`)"; the fix keeps the encodings' inputs in float32 and
casts to the model's precision only after the encoding is computed, warning when inputs
arrive in lower precision). Here each digit's 64 pixels are read out as 64 peaks at
600 + 4 * intensity (a spectrum of 64 fixed channels), the batch is cast to bfloat16 as
a bfloat16 training loop casts its inputs, and an MLP under CPU bfloat16 autocast centres
and scales the masses itself. Fix: keep the raw masses in float32 (scale first, or let
autocast cast after the model's own normalisation).

Measured (200 steps, 297 held-out digits): held-out accuracy 0.84 against the fixed twin's
0.90, training loss over the last 20 steps 0.148 against 0.094.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "Add float16 and bfloat16 support in sinusoidal encodings."
LINK = "https://github.com/wfondrie/depthcharge/pull/82"
EXPECTED = ("INPUTS_ROUNDED_BY_LOW_PRECISION",)
STEPS = 200
HELD_OUT = 297       # the last rows of the digits, never trained on
BASE_MZ, SPAN_MZ = 600.0, 4.0


class MassEncoder(nn.Module):
    """Centres and scales raw masses, then an MLP (runs under bfloat16 autocast)."""

    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))

    def forward(self, mz):
        return self.net((mz - BASE_MZ) / SPAN_MZ)


def spectra():
    x, y = classification()
    return BASE_MZ + SPAN_MZ * x, y          # float32 masses in [600, 604]


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    mz, y = spectra()
    model = MassEncoder()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    # BUG (fixed=False): the batch is cast to the training dtype before the model scales it
    dtype = torch.float32 if fixed else torch.bfloat16
    data = ((xb.to(dtype), yb) for xb, yb in batches(mz[:-HELD_OUT], y[:-HELD_OUT], steps))

    def forward(xb):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            return model(xb)

    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in data:
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(forward(xb).float(), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        held = mz[-HELD_OUT:].to(dtype)
        mon.accuracy = round(float((forward(held).argmax(1) == y[-HELD_OUT:]).float().mean()), 3)
    return mon
