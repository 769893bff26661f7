"""DoReFa's ACTIVATION quantiser used as the weights' (kernel) quantiser. It clips its input
to [0, 1] before rounding to 2^k - 1 levels - right for post-ReLU activations, but a weight
matrix is centred on zero: every negative weight is clipped to 0 in the forward pass, and
the clip passes no gradient below 0, so those weights never come back. From the first step
about half of every matrix is a constant zero, the rest only ever adds, and the network
trains as one with non-negative weights only. Nothing errors; the loss falls slowly and
stalls high.

Reported: "Training does not converge when DoReFa is used as a kernel quantizer" -
https://github.com/larq/larq/issues/487 (a small network with ``kernel_quantizer=DoReFa``
at 2 bits stays near chance - 0.12 accuracy after 30 epochs - while SteSign kernels reach
0.66; the quantiser clips its inputs to [0, 1] as DoReFa does for activations; larq then
added a weights mode, ``DoReFa(mode="weights")``, in
https://github.com/larq/larq/pull/651, which maps the weights through
``tanh(w) / (2 max|tanh w|) + 1/2`` before quantising and back to [-1, 1] after). Here an
MLP 64-128-128-10 on the digits whose three weight matrices are quantised to 2 bits, batch
norm after each hidden layer as larq models have, Adam at 1e-3. Fix: the weights-mode
quantiser for the kernels.

Measured (600 steps; held-out accuracy on 397 digits): seed 0, 0.086 for the bug (the final
loss 2.30, ln 10: chance) against 0.962 for the fixed twin; seeds shifted by 1000, 0.086
(loss 2.30) against 0.977. The output layer's weights all end at or below zero, clipped to
0, so the logits are its bias alone and no gradient reaches anything before it.
"""
import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._q165 import accuracy, digits_split

TITLE = "Training does not converge when DoReFa is used as a kernel quantizer"
LINK = "https://github.com/larq/larq/issues/487"
EXPECTED = ("QUANTIZER_RANGE_EXCLUDES_NEGATIVE_WEIGHTS", "NO_GRADIENT")
STEPS = 600
BITS = 2
LEVELS = 2 ** BITS - 1


def round_ste(x):
    return x + (torch.round(x * LEVELS) / LEVELS - x).detach()


def activation_mode(w):
    """DoReFa for activations: clip to [0, 1] (no gradient outside), k-bit levels."""
    return round_ste(torch.clamp(w, 0, 1))


def weights_mode(w):
    """DoReFa for weights: tanh, to [0, 1], k-bit levels, back to [-1, 1]."""
    t = torch.tanh(w)
    return 2 * round_ste(t / (2 * t.abs().max().detach()) + 0.5) - 1


class QuantDense(nn.Linear):
    def __init__(self, inputs, outputs, fixed):
        super().__init__(inputs, outputs)
        self.kernel_quantizer = weights_mode if fixed else activation_mode   # BUG if not

    def forward(self, x):
        return F.linear(x, self.kernel_quantizer(self.weight), self.bias)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_held, y_held = digits_split(0)
    model = nn.Sequential(QuantDense(64, 128, fixed), nn.BatchNorm1d(128), nn.ReLU(),
                          QuantDense(128, 128, fixed), nn.BatchNorm1d(128), nn.ReLU(),
                          QuantDense(128, 10, fixed))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(model, x_held, y_held)
    mon.final_loss = round(loss.item(), 3)
    return mon
