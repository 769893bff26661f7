"""1-bit activations computed with ``torch.sign`` instead of the k-bit quantizer with its
straight-through gradient: sign's derivative is zero wherever it is defined, so nothing
reaches the layers before the binarized activations - they keep their initial weights and
only the layers after the last sign learn, on random binary features.

Reported: "error when quantize activations to 1 bit." -
https://github.com/zzzxxxttt/pytorch_DoReFaNet/issues/8 (with Sign() for 1-bit activations
the 1-1 bit ResNet reaches only 60%; the author: "sign() is not an STE ... sign() returns zero
gradients", while q_k "behaves like a linear function during backpropagation"). Here a
64-64-64-10 MLP on the 8x8 digits with batch norm and binarized activations after both
hidden layers, Adam 1e-3.
Fix: binarize with the straight-through quantizer, ``x + (sign(x) - x).detach()`` on the
input clipped to [-1, 1] (the gradient passed where |x| <= 1).

Measured (300 steps, Adam 1e-3): the bug's loss 2.23 at the first step, 0.84 over the last
10 (only the last layer learns); the fixed twin's 0.10.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "error when quantize activations to 1 bit."
LINK = "https://github.com/zzzxxxttt/pytorch_DoReFaNet/issues/8"
EXPECTED = ("NO_GRADIENT", "PARAMS_NOT_UPDATING")
STEPS = 300
WIDTH = 64


class BinaryActivation(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.fixed = fixed

    def forward(self, x):
        if self.fixed:
            clipped = torch.clamp(x, -1, 1)
            return clipped + (torch.sign(clipped) - clipped).detach()
        return torch.sign(x)                                  # BUG: zero gradient


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = nn.Sequential(nn.Linear(64, WIDTH), nn.BatchNorm1d(WIDTH), BinaryActivation(fixed),
                          nn.Linear(WIDTH, WIDTH), nn.BatchNorm1d(WIDTH),
                          BinaryActivation(fixed), nn.Linear(WIDTH, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    return train_watched(model, optimizer, nn.CrossEntropyLoss(), batches(x, y, steps),
                         **watch)
