"""Activation functions and the softmax family."""
import numpy as np

from ..autograd import Function
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


@register("softmax")
class Softmax(Function):
    @staticmethod
    def forward(ctx, a, axis=-1):
        ctx.axis = axis
        if a.size == 0:  # nothing to normalise (an empty axis has no maximum to shift by)
            ctx.save_for_backward(a)
            return a.copy()
        shifted = np.exp(a - a.max(axis=axis, keepdims=True))
        out = shifted / shifted.sum(axis=axis, keepdims=True)
        ctx.save_for_backward(out)
        ctx.axis = axis
        return out

    @staticmethod
    def backward(ctx, grad):
        # Jacobian diag(s) - s s^T, applied without building it: s * (g - <g, s>)
        (s,) = ctx.saved_tensors
        return (s * (grad - (grad * s).sum(axis=ctx.axis, keepdims=True)),)


@register("log_softmax")
class LogSoftmax(Function):
    @staticmethod
    def forward(ctx, a, axis=-1):
        ctx.axis = axis
        if a.size == 0:  # nothing to normalise (an empty axis has no maximum to shift by)
            ctx.save_for_backward(a)
            return a.copy()
        shifted = a - a.max(axis=axis, keepdims=True)
        out = shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))
        ctx.save_for_backward(out)
        ctx.axis = axis
        return out

    @staticmethod
    def backward(ctx, grad):  # d/da (a - logsumexp a) = I - softmax(a) 1^T
        (out,) = ctx.saved_tensors
        return (grad - np.exp(out) * grad.sum(axis=ctx.axis, keepdims=True),)
