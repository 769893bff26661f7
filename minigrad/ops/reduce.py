"""Reductions: sum, mean, max/min, var, prod, logsumexp, norm, cumsum.

Each backward spreads the output's gradient back over the elements the output
combined. ``expand_reduced`` puts the reduced axes back so the gradient
broadcasts against the input.
"""
import numpy as np

from ..autograd import Function
from .registry import register


def normalize_axes(axis, ndim):
    """Sorted non-negative axes; ``None`` and ``()`` mean every axis (as in torch)."""
    if axis is None:
        return tuple(range(ndim))
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    if not axes:
        return tuple(range(ndim))
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
        with np.errstate(invalid="ignore", divide="ignore"):  # mean of nothing: nan, as torch
            return np.asarray(a.mean(axis=ctx.axes, keepdims=keepdims))

    @staticmethod
    def backward(ctx, grad):  # every averaged element gets 1/count of the gradient
        spread = np.broadcast_to(expand_reduced(grad, ctx.axes, ctx.keepdims), ctx.shape)
        return (spread / max(ctx.count, 1),)


def _extreme_backward(ctx, grad):
    """The extreme element takes the gradient; tied extremes share it equally (torch's amax)."""
    a, out = ctx.saved_tensors
    winners = a == out
    share = winners / winners.sum(axis=ctx.axes, keepdims=True)
    return (share * expand_reduced(grad, ctx.axes, ctx.keepdims),)


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
        return _extreme_backward(ctx, grad)


@register("min")
class Min(Function):
    @staticmethod
    def forward(ctx, a, axis=None, keepdims=False):
        ctx.axes, ctx.keepdims = normalize_axes(axis, a.ndim), keepdims
        out = np.asarray(a.min(axis=ctx.axes, keepdims=True))
        ctx.save_for_backward(a, out)
        return out if keepdims else np.squeeze(out, axis=ctx.axes)

    @staticmethod
    def backward(ctx, grad):
        return _extreme_backward(ctx, grad)


@register("var")
class Var(Function):
    """Variance with ``correction`` subtracted from the count (1: unbiased, torch's default)."""

    @staticmethod
    def forward(ctx, a, axis=None, keepdims=False, correction=1):
        ctx.axes, ctx.keepdims = normalize_axes(axis, a.ndim), keepdims
        ctx.divisor = max(reduced_count(a.shape, ctx.axes) - correction, 0)
        with np.errstate(invalid="ignore", divide="ignore"):  # nothing to divide by: nan, as torch
            centered = a - a.mean(axis=ctx.axes, keepdims=True)
            ctx.save_for_backward(centered)
            total = (centered ** 2).sum(axis=ctx.axes, keepdims=keepdims)
            return np.asarray(total / np.asarray(ctx.divisor, dtype=a.dtype), dtype=a.dtype)

    @staticmethod
    def backward(ctx, grad):  # d var/da_i = 2 (a_i - mean) / divisor (the mean's own term sums to 0)
        (centered,) = ctx.saved_tensors
        with np.errstate(invalid="ignore", divide="ignore"):
            return (2 * centered / ctx.divisor * expand_reduced(grad, ctx.axes, ctx.keepdims),)


@register("prod")
class Prod(Function):
    @staticmethod
    def forward(ctx, a, axis=None, keepdims=False):
        ctx.axes, ctx.keepdims = normalize_axes(axis, a.ndim), keepdims
        ctx.save_for_backward(a)
        return np.asarray(a.prod(axis=ctx.axes, keepdims=keepdims))

    @staticmethod
    def backward(ctx, grad):
        # d prod/da_i = product of all the others. Not prod / a_i: that divides by zero.
        # Move the reduced axes to the end, flatten them, and multiply the prefix products
        # (everything before i) by the suffix products (everything after i).
        (a,) = ctx.saved_tensors
        if a.size == 0:
            return (np.zeros_like(a),)
        kept = [i for i in range(a.ndim) if i not in ctx.axes]
        moved = np.transpose(a, kept + list(ctx.axes))
        rows = moved.reshape(moved.shape[:len(kept)] + (-1,))
        ones = np.ones(rows.shape[:-1] + (1,), dtype=a.dtype)
        before = np.cumprod(np.concatenate([ones, rows[..., :-1]], axis=-1), axis=-1)
        after = np.cumprod(np.concatenate([ones, rows[..., :0:-1]], axis=-1), axis=-1)[..., ::-1]
        others = (before * after).reshape(moved.shape)
        others = np.transpose(others, np.argsort(kept + list(ctx.axes)))
        return (others * expand_reduced(grad, ctx.axes, ctx.keepdims),)


@register("logsumexp")
class LogSumExp(Function):
    @staticmethod
    def forward(ctx, a, axis=None, keepdims=False):
        ctx.axes, ctx.keepdims = normalize_axes(axis, a.ndim), keepdims
        # shift by the maximum so exp never overflows; an all -inf row stays -inf
        peak = np.max(a, axis=ctx.axes, keepdims=True, initial=-np.inf)
        peak = np.where(np.isfinite(peak), peak, 0)
        with np.errstate(divide="ignore"):
            out = np.log(np.exp(a - peak).sum(axis=ctx.axes, keepdims=True)) + peak
        ctx.save_for_backward(a, out)
        return (out if keepdims else np.squeeze(out, axis=ctx.axes)).astype(a.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):  # d logsumexp(a)/da_i = e^(a_i - logsumexp a) = softmax(a)_i
        a, out = ctx.saved_tensors
        return (np.exp(a - out) * expand_reduced(grad, ctx.axes, ctx.keepdims),)


@register("norm")
class Norm(Function):
    """The p-norm ``(sum |a|^p)^(1/p)`` over ``axis``, for a finite p other than 0."""

    @staticmethod
    def forward(ctx, a, p=2.0, axis=None, keepdims=False):
        if not np.isfinite(p) or p == 0:
            raise ValueError(f"the norm primitive takes a finite p other than 0, got p={p}; "
                             "minigrad.ops.norm handles p=inf, -inf and 0")
        ctx.axes, ctx.keepdims, ctx.p = normalize_axes(axis, a.ndim), keepdims, p
        with np.errstate(divide="ignore"):  # p < 0 with a zero element: the norm is 0
            out = (np.abs(a) ** p).sum(axis=ctx.axes, keepdims=True) ** (1.0 / p)
        ctx.save_for_backward(a, out)
        return (out if keepdims else np.squeeze(out, axis=ctx.axes)).astype(a.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        # d norm/da_i = sign(a_i) |a_i|^(p-1) / norm^(p-1); 0 where the norm is 0 (torch's choice)
        a, out = ctx.saved_tensors
        p = ctx.p
        with np.errstate(invalid="ignore", divide="ignore"):
            local = np.sign(a) * np.abs(a) ** (p - 1) / out ** (p - 1)
        local = np.where((out == 0) | ~np.isfinite(local), 0, local)
        return ((local * expand_reduced(grad, ctx.axes, ctx.keepdims)).astype(a.dtype, copy=False),)


@register("cumsum")
class CumSum(Function):
    @staticmethod
    def forward(ctx, a, axis=0):
        ctx.axis = normalize_axes(axis, a.ndim)[0] if a.ndim else None
        return np.cumsum(a, axis=ctx.axis).reshape(a.shape)

    @staticmethod
    def backward(ctx, grad):  # a_i is in every partial sum from i on: sum the gradients from the end
        if ctx.axis is None:
            return (grad,)
        flipped = np.flip(grad, axis=ctx.axis)
        return (np.flip(np.cumsum(flipped, axis=ctx.axis), axis=ctx.axis),)
