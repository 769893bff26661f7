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
        in_range = axes is None or all(-a.ndim <= int(x) < a.ndim for x in axes)
        if not in_range or (axes is not None and
                            sorted(int(x) % a.ndim for x in axes) != list(range(a.ndim))):
            raise ValueError(f"permute: axes {tuple(axes)} must list each of the {a.ndim} axes of "
                             f"the shape {a.shape} exactly once")
        ctx.axes = tuple(range(a.ndim))[::-1] if axes is None else tuple(int(x) % a.ndim for x in axes)
        return np.transpose(a, ctx.axes)

    @staticmethod
    def backward(ctx, grad):  # apply the inverse permutation: input axis i went to ctx.axes.index(i)
        return (np.transpose(grad, [ctx.axes.index(i) for i in range(len(ctx.axes))]),)


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
        try:
            out = np.concatenate(arrays, axis=axis)
        except ValueError:
            raise ValueError(f"cat: shapes {[x.shape for x in arrays]} differ on an axis other than "
                             f"the joining axis {axis}; all other axes must match") from None
        ctx.splits = np.cumsum([x.shape[axis] for x in arrays])[:-1]
        return out

    @staticmethod
    def backward(ctx, grad):  # each input gets back its own slice
        return tuple(np.split(grad, ctx.splits, axis=ctx.axis))


@register("stack")
class Stack(Function):
    @staticmethod
    def forward(ctx, *arrays, axis=0):
        ctx.axis, ctx.count = axis, len(arrays)
        if len({x.shape for x in arrays}) > 1:
            raise ValueError(f"stack: all tensors must have the same shape, got {[x.shape for x in arrays]}")
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


@register("identity")
class Identity(Function):
    """Pass the value through unchanged (a fresh view, so it is a new node in the graph).

    Module backward hooks put one in front of each input and behind each output:
    the gradient reaching that fresh node is exactly the module's own grad_input /
    grad_output, separate from any other use of the same tensor.
    """

    @staticmethod
    def forward(ctx, a):
        return a.view()

    @staticmethod
    def backward(ctx, grad):
        return (grad,)
