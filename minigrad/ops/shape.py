"""Ops that move values around without changing them: the gradient moves back the same way."""
import numpy as np

from ..autograd import Function
from .registry import register


@register("reshape")
class Reshape(Function):
    @staticmethod
    def forward(ctx, a, shape=None):
        ctx.shape = a.shape
        return a.reshape(shape)

    @staticmethod
    def backward(ctx, grad):
        return (grad.reshape(ctx.shape),)


@register("permute")
class Permute(Function):
    @staticmethod
    def forward(ctx, a, axes=None):
        ctx.axes = tuple(range(a.ndim))[::-1] if axes is None else tuple(int(x) % a.ndim for x in axes)
        return np.transpose(a, ctx.axes)

    @staticmethod
    def backward(ctx, grad):  # apply the inverse permutation
        return (np.transpose(grad, np.argsort(ctx.axes)),)


@register("getitem")
class GetItem(Function):
    @staticmethod
    def forward(ctx, a, index=None):
        ctx.shape, ctx.dtype, ctx.index = a.shape, a.dtype, index
        return np.asarray(a[index])

    @staticmethod
    def backward(ctx, grad):
        # scatter-add, not assignment: an index that appears twice received
        # the value twice, so it must receive both gradients
        full = np.zeros(ctx.shape, dtype=grad.dtype)
        np.add.at(full, ctx.index, grad)
        return (full,)


@register("cat")
class Cat(Function):
    @staticmethod
    def forward(ctx, *arrays, axis=0):
        ctx.axis = axis
        ctx.splits = np.cumsum([x.shape[axis] for x in arrays])[:-1]
        return np.concatenate(arrays, axis=axis)

    @staticmethod
    def backward(ctx, grad):  # each input gets back its own slice
        return tuple(np.split(grad, ctx.splits, axis=ctx.axis))


@register("stack")
class Stack(Function):
    @staticmethod
    def forward(ctx, *arrays, axis=0):
        ctx.axis, ctx.count = axis, len(arrays)
        return np.stack(arrays, axis=axis)

    @staticmethod
    def backward(ctx, grad):
        return tuple(np.take(grad, i, axis=ctx.axis) for i in range(ctx.count))


@register("pad")
class Pad(Function):
    @staticmethod
    def forward(ctx, a, pad_width=None, value=0.0):
        ctx.pad_width = [tuple(p) for p in pad_width]
        return np.pad(a, ctx.pad_width, constant_values=value)

    @staticmethod
    def backward(ctx, grad):  # padding got no input value, so it passes no gradient back
        inside = tuple(slice(before, grad.shape[i] - after)
                       for i, (before, after) in enumerate(ctx.pad_width))
        return (grad[inside],)
