"""A learned-step-size (LSQ) activation quantizer whose step size is a bare parameter, with
nothing keeping it positive: a few large steps of the optimizer push it below zero, after
which every (non-negative) activation divided by it falls below the unsigned range's floor,
the quantizer outputs zeros for all inputs, and no gradient reaches the step size or the
layer before it again - the quantized layer is dead for the rest of the run.

Reported: "Questions about step size training in LSQ and LSQ+." -
https://github.com/ZouJiu1/LSQplus/issues/12 ("there were times where the step size will
become negative and the quantized performance of the model will become really bad"). Here a
64-64-64-10 MLP on the 8x8 digits with 8-bit unsigned LSQ quantizers after both ReLUs (step
size initialised as in the LSQ paper, 2 mean|x| / sqrt(Qp), from the first batch), Adam 1e-2
on all parameters.
Fix: use a positive step size in the forward pass, ``scale.abs() + eps`` (as LSQ+
implementations do).

Measured (300 steps, Adam 1e-2): the second quantizer's step size goes below zero early in
the run and stays there; the bug's loss 2.30 at the first step and 2.30 over the last 10
(chance for 10 classes); the fixed twin's 0.04. (At 2 bits and Adam 1e-2 the step sizes
stayed positive; at 2 bits and 3e-2 one went negative too.)
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "Questions about step size training in LSQ and LSQ+."
LINK = "https://github.com/ZouJiu1/LSQplus/issues/12"
EXPECTED = ("NO_GRADIENT", "DEAD_RELU")
STEPS = 300
BITS = 8
EPS = 1e-5


def round_straight_through(x):
    return x + (torch.round(x) - x).detach()


class LsqActivation(nn.Module):
    """Unsigned LSQ fake quantizer: round(clamp(x / s, 0, Qp)) * s, s learned."""

    def __init__(self, fixed, bits=BITS):
        super().__init__()
        self.fixed = fixed
        self.top = 2 ** bits - 1
        self.scale = nn.Parameter(torch.tensor(1.0))
        self.initialised = False

    def forward(self, x):
        if not self.initialised:
            with torch.no_grad():
                self.scale.fill_(2 * x.abs().mean().item() / self.top ** 0.5)
            self.initialised = True
        scale = self.scale.abs() + EPS if self.fixed else self.scale   # BUG: sign unconstrained
        return round_straight_through(torch.clamp(x / scale, 0, self.top)) * scale


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), LsqActivation(fixed),
                          nn.Linear(64, 64), nn.ReLU(), LsqActivation(fixed),
                          nn.Linear(64, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    return train_watched(model, optimizer, nn.CrossEntropyLoss(), batches(x, y, steps),
                         **watch)
