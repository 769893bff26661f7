"""Ops that move values around without changing them: the gradient moves back the same way."""
import functools

import numpy as np

from ..autograd import Function
from . import buffers
from .registry import register, unbroadcast


def reshaped(a, shape):
    """``a.reshape(shape)``: a view where the memory layout allows one, else a copy in a
    reused buffer (buffers.py), e.g. for heads moved back beside each other in attention."""
    if a.flags.c_contiguous:
        return a.reshape(shape)   # always a view
    try:
        return np.reshape(a, shape, copy=False)
    except TypeError:    # NumPy before 2.1 has no copy=
        return a.reshape(shape)
    except ValueError:   # a copy is needed (or the shape is wrong: reshape says so below)
        if a.nbytes < buffers.POOLED_FROM:
            return a.reshape(shape)
        return buffers.copy(a).reshape(shape)


@register("reshape")
class Reshape(Function):
    @staticmethod
    def forward(ctx, a, shape=None):
        ctx.shape = a.shape
        return reshaped(a, shape)

    @staticmethod
    def backward(ctx, grad):
        return (reshaped(grad, ctx.shape),)


@register("permute")
class Permute(Function):
    @staticmethod
    def forward(ctx, a, axes=None):
        try:
            ctx.axes, ctx.inverse = _permutation(None if axes is None else tuple(axes), a.ndim)
        except ValueError:
            raise ValueError(f"permute: axes {tuple(axes)} must list each of the {a.ndim} axes "
                             f"of the shape {a.shape} exactly once") from None
        return a.transpose(ctx.axes)

    @staticmethod
    def backward(ctx, grad):  # apply the inverse permutation: input axis i went to ctx.axes.index(i)
        return (grad.transpose(ctx.inverse),)


@functools.lru_cache(maxsize=256)
def _permutation(axes, ndim):
    """``(axes, inverse)``: ``axes`` with negative entries counted from the end (None: reversed),
    and the permutation that undoes it; ValueError unless each axis appears exactly once.
    Remembered: a model permutes with the same few axes at every step (every Linear's weight.T)."""
    if axes is None:
        axes = tuple(range(ndim))[::-1]
    else:
        axes = tuple([int(x) + ndim if x < 0 else int(x) for x in axes])
        if sorted(axes) != list(range(ndim)):
            raise ValueError(f"not a permutation of {ndim} axes: {axes}")
    return axes, tuple([axes.index(i) for i in range(ndim)])


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
        full = buffers.zeros(ctx.shape, grad.dtype)
        if _never_repeats(ctx.index):  # slices, ints, masks: plain assignment is the
            full[ctx.index] = grad      # same sum, and much faster than np.add.at
        else:
            np.add.at(full, ctx.index, grad)
        return (full,)


def _never_repeats(index):
    """True when ``index`` can pick no element twice: no integer arrays or lists in it."""
    parts = index if type(index) is tuple else (index,)
    return all(part is None or part is Ellipsis or isinstance(part, (int, np.integer, slice))
               or (isinstance(part, np.ndarray) and part.dtype == bool) for part in parts)


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


@register("clone")
class Clone(Function):
    """A copy with its own storage; the gradient passes through unchanged."""

    @staticmethod
    def forward(ctx, a):
        return a.copy()

    @staticmethod
    def backward(ctx, grad):
        return (grad,)


@register("expand")
class Expand(Function):
    """Broadcast to a larger shape (size-1 axes stretched, leading axes added)."""

    @staticmethod
    def forward(ctx, a, shape=None):
        ctx.shape = a.shape
        return np.broadcast_to(a, shape)

    @staticmethod
    def backward(ctx, grad):  # each input element was used once per copy: sum the copies
        return (unbroadcast(grad, ctx.shape),)


@register("repeat")
class Repeat(Function):
    """Tile the whole tensor ``repeats[i]`` times along axis i (torch's ``Tensor.repeat``)."""

    @staticmethod
    def forward(ctx, a, repeats=None):
        ctx.shape, ctx.repeats = a.shape, tuple(repeats)
        return np.tile(a, ctx.repeats)

    @staticmethod
    def backward(ctx, grad):
        # view each output axis of size r * s as (r, s) and sum over the r copies
        shape = (1,) * (len(ctx.repeats) - len(ctx.shape)) + ctx.shape
        split = [size for pair in zip(ctx.repeats, shape) for size in pair]
        summed = grad.reshape(split).sum(axis=tuple(range(0, len(split), 2)))
        return (summed.reshape(ctx.shape),)


@register("flip")
class Flip(Function):
    @staticmethod
    def forward(ctx, a, axes=None):
        ctx.axes = tuple(axes)
        return np.flip(a, ctx.axes).copy() if ctx.axes else a.copy()

    @staticmethod
    def backward(ctx, grad):  # flipping is its own inverse
        return (np.flip(grad, ctx.axes) if ctx.axes else grad,)


@register("gather")
class Gather(Function):
    """``out[i][j][k] = a[i][index[i][j][k]][k]`` for axis 1 (torch.gather), any axis."""

    @staticmethod
    def forward(ctx, a, index=None, axis=0):
        ctx.shape = a.shape
        if index.size == 0:  # nothing gathered (torch allows any shape then)
            ctx.where = None
            return np.zeros(index.shape, dtype=a.dtype)
        ctx.where = _along_axis_index(index, axis)
        return a[ctx.where]

    @staticmethod
    def backward(ctx, grad):
        # scatter-add: an element gathered twice receives both gradients
        full = np.zeros(ctx.shape, dtype=grad.dtype)
        if ctx.where is not None:
            np.add.at(full, ctx.where, grad)
        return (full,)


def _along_axis_index(index, axis):
    """Where gather reads: ``index`` along ``axis``, each element's own position elsewhere.

    Unlike ``np.take_along_axis`` this lets ``index`` be smaller than ``a`` on the
    other axes too, as torch.gather does.
    """
    grids = list(np.indices(index.shape, sparse=True))
    grids[axis] = index
    return tuple(grids)
