"""A compression autoencoder quantizes its bottleneck with ``round`` and, because round has
no useful derivative, wraps it in a stop-gradient: ``round(z).detach()`` (TensorFlow's
``tf.stop_gradient(tf.round(z))``). That cuts the graph at the bottleneck: the decoder
learns, the encoder receives no gradient at all and stays at its random initialisation.

Reported: "Question about gradient calculation in the quantizer" -
https://github.com/Justin-Tan/generative-compression/issues/27 ("tf.stop_gradient() is used
to ignore the gradient contribution of present node, which means that your encoder network
will not update its parameters"; the author: "I manually overrode the gradient so that it
is just the identity - this is the 'straight-through' estimator"). Here an autoencoder
on the 8x8 digits with a 16-unit bottleneck quantized to steps of 0.5. Fix: a custom
``autograd.Function`` whose forward rounds and whose backward passes the gradient through
unchanged (the straight-through estimator).

Measured (300 steps, Adam 1e-3): the bug's encoder weights never change (gradient None),
reconstruction loss 0.251 at the first step, 0.067 over the last 10; the fixed twin's 0.026.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "Question about gradient calculation in the quantizer"
LINK = "https://github.com/Justin-Tan/generative-compression/issues/27"
EXPECTED = ("NO_GRADIENT",)
STEPS = 300
STEP = 0.5


class RoundStraightThrough(torch.autograd.Function):
    """round() forward; identity backward (the straight-through estimator)."""

    @staticmethod
    def forward(ctx, z):
        return torch.round(z)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output


class QuantizedAutoencoder(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.fixed = fixed
        self.encoder = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 16))
        self.decoder = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 64))

    def forward(self, x):
        z = self.encoder(x) / STEP
        if self.fixed:
            quantized = RoundStraightThrough.apply(z)
        else:
            quantized = torch.round(z).detach()            # BUG: stop-gradient at the code
        return self.decoder(quantized * STEP)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, _ = classification()
    model = QuantizedAutoencoder(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    return train_watched(model, optimizer, nn.MSELoss(),
                         ((xb, xb) for xb, _ in batches(x, x, steps)), **watch)
