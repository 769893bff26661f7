"""Dropout as a deterministic primitive: ``x * mask * scale`` with the mask given.

The random part (which units to drop) is drawn *outside* the primitive by the
``dropout`` function in ``minigrad.ops`` from minigrad's generator, and handed in
as a constant. So the primitive is a plain function of its inputs: a gradient
checker can re-run it with the very same mask, and the backward is simply the
same mask and scale applied to the incoming gradient.
"""
import numpy as np

from ..autograd import Function
from .registry import register


@register("dropout")
class Dropout(Function):
    @staticmethod
    def forward(ctx, x, mask=None, scale=1.0):
        if mask is None:
            raise ValueError("the dropout primitive needs its mask as a keyword argument; call "
                             "minigrad.ops.dropout(x, p, training) to have one drawn")
        mask = np.asarray(mask)
        try:
            fits = np.broadcast_shapes(mask.shape, x.shape) == x.shape
        except ValueError:
            fits = False
        if not fits:  # a broadcastable mask (e.g. one per channel) is allowed
            raise ValueError(f"dropout: mask shape {mask.shape} does not fit input shape {x.shape}")
        ctx.keep = mask.astype(x.dtype) * np.asarray(scale, dtype=x.dtype)
        return x * ctx.keep

    @staticmethod
    def backward(ctx, grad):  # d(x * keep)/dx = keep: dropped units pass no gradient
        return (grad * ctx.keep,)
