"""Activation functions and the softmax family."""
import math

import numpy as np

from ..autograd import Function
from . import buffers
from .axis_reductions import max_last, sum_last
from .registry import register


@register("relu")
class ReLU(Function):
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return np.maximum(a, 0).astype(a.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):  # 1 where the input was positive, else 0 (0 at the kink, as torch)
        (a,) = ctx.saved_tensors
        return (grad * (a > 0),)


@register("leaky_relu")
class LeakyReLU(Function):
    @staticmethod
    def forward(ctx, a, negative_slope=0.01):
        ctx.save_for_backward(a)
        ctx.slope = negative_slope
        return np.where(a > 0, a, a * negative_slope).astype(a.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return (grad * np.where(a > 0, 1.0, ctx.slope).astype(a.dtype),)


@register("tanh")
class Tanh(Function):
    @staticmethod
    def forward(ctx, a):
        out = np.tanh(a)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):  # d tanh(a)/da = 1 - tanh(a)^2
        (out,) = ctx.saved_tensors
        return (grad * (1 - out * out),)


def stable_sigmoid(a):
    """1 / (1 + e^-a) without overflow: use e^a / (1 + e^a) for negative a."""
    e = np.exp(-np.abs(a))
    return np.where(a >= 0, 1 / (1 + e), e / (1 + e)).astype(a.dtype, copy=False)


@register("sigmoid")
class Sigmoid(Function):
    @staticmethod
    def forward(ctx, a):
        out = stable_sigmoid(a)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):  # d s(a)/da = s(a) (1 - s(a))
        (out,) = ctx.saved_tensors
        return (grad * out * (1 - out),)


SAFE_ROW_SUM = math.exp(-50)   # see shifted_exp


def shifted_exp(a, keep_shifted=False):
    """``(a - m, exp(a - m), sums of exp(a - m) over the last axis)`` for a float array ``a``,
    with a shift m that keeps exp from overflowing: the parts of softmax and log-softmax.
    With ``keep_shifted`` (log-softmax: ``a - m - log(sums)``) m is each row's maximum;
    see below why softmax alone may use one shift for the whole array.

    Any m works in exact arithmetic; the usual one is each row's maximum, but row maxima
    of short rows cost more than all the rest (~50 us of ~100 us on a (16, 4, 32, 32)
    attention matrix). One maximum for the whole array does as well unless some row
    lies far below it: then that row's terms underflow. So the whole array's maximum is
    tried first and kept when every row sum is at least e^-50 (each row's largest term is
    then a normal float, and a term that underflowed was below e^-37 of its row's total);
    otherwise, or with inf or nan in ``a``, the row maxima are used. Not for log-softmax:
    there ``a - m - log(sums)`` of a row's largest entry would cancel two terms as large
    as that row's distance below m, and log-probabilities near 0 would keep only the
    absolute precision of that distance. ``a - m`` comes back only with ``keep_shifted``
    (else None), written into a new array of its own.
    """
    shift = a.max() if a.size and not keep_shifted else np.inf
    if np.isfinite(shift):
        parts = _shifted_exp(a, shift, keep_shifted)
        if parts[2].size == 0 or parts[2].min() >= SAFE_ROW_SUM:
            return parts
    return _shifted_exp(a, max_last(a), keep_shifted)


def _shifted_exp(a, shift, keep_shifted):
    shifted = np.subtract(a, shift, out=buffers.empty_like(a))
    exps = np.exp(shifted, out=buffers.empty_like(a) if keep_shifted else shifted)
    return (shifted if keep_shifted else None), exps, sum_last(exps)


def _is_last(axis, ndim):
    """``axis`` names the last axis (softmax's usual one: axis_reductions covers it)."""
    return ndim > 0 and axis in (-1, ndim - 1)


@register("softmax")
class Softmax(Function):
    @staticmethod
    def forward(ctx, a, axis=-1):
        ctx.axis = axis
        if a.size == 0:  # nothing to normalise (an empty axis has no maximum to shift by)
            ctx.save_for_backward(a)
            return a.copy()
        if _is_last(axis, a.ndim) and a.dtype.kind == "f":   # the usual case, faster reductions
            _, out, sums = shifted_exp(a)
            out /= sums
        else:
            shifted = np.exp(a - a.max(axis=axis, keepdims=True))
            out = shifted / shifted.sum(axis=axis, keepdims=True)
        ctx.save_for_backward(out)
        ctx.axis = axis
        return out

    @staticmethod
    def backward(ctx, grad):
        # Jacobian diag(s) - s s^T, applied without building it: s * (g - <g, s>)
        (s,) = ctx.saved_tensors
        if _is_last(ctx.axis, s.ndim) and grad.dtype == s.dtype:  # in one new array
            out = np.multiply(grad, s, out=buffers.empty_like(s))
            np.subtract(grad, sum_last(out), out=out)
            out *= s
            return (out,)
        if _is_last(ctx.axis, s.ndim):
            return (s * (grad - sum_last(grad * s)),)
        return (s * (grad - (grad * s).sum(axis=ctx.axis, keepdims=True)),)


@register("log_softmax")
class LogSoftmax(Function):
    @staticmethod
    def forward(ctx, a, axis=-1):
        ctx.axis = axis
        if a.size == 0:  # nothing to normalise (an empty axis has no maximum to shift by)
            ctx.save_for_backward(a)
            return a.copy()
        if _is_last(axis, a.ndim) and a.dtype.kind == "f":
            out, _, sums = shifted_exp(a, keep_shifted=True)
            out -= np.log(sums)
        elif _is_last(axis, a.ndim):
            shifted = a - max_last(a)
            out = shifted - np.log(sum_last(np.exp(shifted)))
        else:
            shifted = a - a.max(axis=axis, keepdims=True)
            out = shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))
        ctx.save_for_backward(out)
        ctx.axis = axis
        return out

    @staticmethod
    def backward(ctx, grad):  # d/da (a - logsumexp a) = I - softmax(a) 1^T
        (out,) = ctx.saved_tensors
        if _is_last(ctx.axis, out.ndim):
            return (grad - np.exp(out) * sum_last(grad),)
        return (grad - np.exp(out) * grad.sum(axis=ctx.axis, keepdims=True),)
