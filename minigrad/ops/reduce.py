"""Reductions: sum, mean, max, var. Backward spreads the gradient back over the
reduced axes (``expand_reduced`` puts the removed axes back for broadcasting)."""
import numpy as np

from ..autograd import Function
from .registry import register


def normalize_axes(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    for a in axes:  # without this check, axis 2 of a 2-D tensor would silently mean axis 0
        if not -max(ndim, 1) <= int(a) < max(ndim, 1):
            raise ValueError(f"axis {a} is out of range for a tensor with {ndim} dimensions "
                             f"(valid axes: {-ndim}..{ndim - 1})")
    return tuple(sorted(int(a) % ndim for a in axes)) if ndim else ()


def reduced_count(shape, axes):
    """How many elements each output of a reduction over ``axes`` combines (1 for no axes)."""
    return int(np.prod([shape[i] for i in axes]))


def expand_reduced(grad, axes, keepdims):
    """Reinsert the axes a reduction removed, so ``grad`` broadcasts to the input."""
    return grad if keepdims else np.expand_dims(grad, axes)


@register("sum")
class Sum(Function):
    @staticmethod
    def forward(ctx, a, axis=None, keepdims=False):
        ctx.shape, ctx.axes, ctx.keepdims = a.shape, normalize_axes(axis, a.ndim), keepdims
        return np.asarray(a.sum(axis=ctx.axes, keepdims=keepdims))

    @staticmethod
    def backward(ctx, grad):  # every summed element gets the full gradient
        return (np.broadcast_to(expand_reduced(grad, ctx.axes, ctx.keepdims), ctx.shape).copy(),)


@register("mean")
class Mean(Function):
    @staticmethod
    def forward(ctx, a, axis=None, keepdims=False):
        ctx.shape, ctx.axes, ctx.keepdims = a.shape, normalize_axes(axis, a.ndim), keepdims
        ctx.count = reduced_count(a.shape, ctx.axes)
        return np.asarray(a.mean(axis=ctx.axes, keepdims=keepdims))

    @staticmethod
    def backward(ctx, grad):  # every averaged element gets 1/count of the gradient
        spread = np.broadcast_to(expand_reduced(grad, ctx.axes, ctx.keepdims), ctx.shape)
        return (spread / ctx.count,)


@register("max")
class Max(Function):
    @staticmethod
    def forward(ctx, a, axis=None, keepdims=False):
        ctx.axes, ctx.keepdims = normalize_axes(axis, a.ndim), keepdims
        out = np.asarray(a.max(axis=ctx.axes, keepdims=True))
        ctx.save_for_backward(a, out)
        return out if keepdims else np.squeeze(out, axis=ctx.axes)

    @staticmethod
    def backward(ctx, grad):
        # the maximum takes the gradient; tied maxima share it equally (torch's amax rule)
        a, out = ctx.saved_tensors
        winners = a == out
        share = winners / winners.sum(axis=ctx.axes, keepdims=True)
        return (share * expand_reduced(grad, ctx.axes, ctx.keepdims),)


@register("var")
class Var(Function):
    @staticmethod
    def forward(ctx, a, axis=None, keepdims=False, unbiased=False):
        ctx.axes, ctx.keepdims = normalize_axes(axis, a.ndim), keepdims
        count = reduced_count(a.shape, ctx.axes)
        ctx.divisor = count - 1 if unbiased else count
        centered = a - a.mean(axis=ctx.axes, keepdims=True)
        ctx.save_for_backward(centered)
        return np.asarray((centered ** 2).sum(axis=ctx.axes, keepdims=keepdims) / ctx.divisor)

    @staticmethod
    def backward(ctx, grad):  # d var/da_i = 2 (a_i - mean) / divisor (the mean's own term sums to 0)
        (centered,) = ctx.saved_tensors
        return (2 * centered / ctx.divisor * expand_reduced(grad, ctx.axes, ctx.keepdims),)
