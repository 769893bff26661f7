"""Activation functions and the softmax family."""
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
            out = np.subtract(a, max_last(a), out=buffers.empty_like(a))
            np.exp(out, out=out)
            out /= sum_last(out)
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
        if _is_last(axis, a.ndim):
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
