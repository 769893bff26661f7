"""Dropout: zero a random fraction ``p`` of the values while training."""
from . import functional as F
from .module import Module


class Dropout(Module):
    """In training mode, zero each value with probability ``p`` and scale the rest by 1/(1-p)
    (so the expected value is unchanged); in eval mode, pass the input through.

    The mask comes from ``minigrad.random.generator()``: seed it to replay a mask.
    """

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = p, inplace

    def forward(self, input):
        return F.dropout(input, self.p, self.training)

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"
