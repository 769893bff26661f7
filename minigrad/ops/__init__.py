"""The functions every Tensor method, nn layer and loss calls: ``x * y`` runs ``mul`` below.

Each function takes tensors (or numbers), checks its arguments once, here, and
applies one registered primitive - a ``Function`` whose forward and backward live
in one of the family files (elementwise.py, reduce.py, shape.py, ...) - or
composes a few of them. So ``x * y`` goes:

    Tensor.__mul__  ->  ops.mul (this file)  ->  REGISTRY["mul"].apply  ->  Mul.forward

and in backward the engine (autograd.py) calls ``Mul.backward``. ``REGISTRY``
maps each primitive's stable name to its class; swapping a class's backward there
changes that gradient everywhere (the bug catalogue does exactly that).

Torch spells an axis ``dim`` and ``keepdims`` ``keepdim``; NumPy the other way.
Every function here accepts both spellings.
"""
import builtins
from collections import namedtuple

import numpy as np

from ..tensor import Tensor, as_tensor
from .registry import REGISTRY, register, unbroadcast
from . import elementwise, activation, reduce, shape, linalg, special  # noqa: F401 (registers)

__all__ = ["REGISTRY", "register", "unbroadcast"]

# sum, min, max and abs below are tensor functions; Python's own stay reachable as these
builtin_sum, builtin_min, builtin_max = builtins.sum, builtins.min, builtins.max


# --- argument helpers: used by every function below -------------------------------------

def _operands(a, b):
    """Tensors for a binary op; a Python number takes the dtype of the tensor beside it."""
    for operand in (a, b):
        if isinstance(operand, (str, bytes)):   # NumPy would read "2" as the number 2
            raise TypeError(f"cannot compute with a string operand ({operand!r}); pass a number "
                            "or a tensor (float(text) converts text you meant as a number)")
    if isinstance(a, Tensor) and not isinstance(b, Tensor) and np.isscalar(b):
        b = as_tensor(b, dtype=a.dtype if a.dtype.kind == "f" else None)
    if isinstance(b, Tensor) and not isinstance(a, Tensor) and np.isscalar(a):
        a = as_tensor(a, dtype=b.dtype if b.dtype.kind == "f" else None)
    return a, b


def _array(x):
    """The NumPy array behind a Tensor or array-like, for arguments that are never differentiated."""
    return x.data if isinstance(x, Tensor) else np.asarray(x)


def _axis(axis, dim, op, default=None):
    """``axis`` (NumPy's word) or ``dim`` (torch's word), not two different ones."""
    if dim is None:
        return default if axis is None else axis
    if axis is not None and axis != dim:
        raise TypeError(f"{op}: got axis={axis!r} and dim={dim!r}; pass one of them")
    return dim


def _in_dtype(a, dtype):
    """torch's ``dtype=`` option of reductions and softmax: compute in that dtype."""
    if dtype is None:
        return a
    a = as_tensor(a)
    dtype = np.dtype(dtype)
    if a.dtype.kind == "f" and dtype.kind == "f":
        return cast(a, dtype)
    return Tensor(a.data.astype(dtype), dtype=dtype, _copy=False)


def _keep(keepdims, keepdim):
    return keepdims if keepdim is None else keepdim


def _one_axis(axis, ndim, op):
    """A single axis as a non-negative int (0-d tensors have the axes 0 and -1, as in torch)."""
    if not isinstance(axis, (int, np.integer)) or isinstance(axis, bool):
        raise TypeError(f"{op}: the axis must be an int, got {axis!r}")
    size = builtin_max(ndim, 1)
    if not -size <= axis < size:
        raise IndexError(f"{op}: axis {axis} is out of range for a tensor with {ndim} "
                         f"dimensions (valid: {-size}..{size - 1})")
    return int(axis) % size


def _int_list(args, op):
    """``f(2, 3)``, ``f((2, 3))`` and ``f([2, 3])`` all mean the sizes (2, 3)."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = tuple(args[0])
    if not all(isinstance(n, (int, np.integer)) and not isinstance(n, bool) for n in args):
        raise TypeError(f"{op}: sizes must be ints, got {args!r}")
    return tuple(int(n) for n in args)


# --- arithmetic: operators and elementwise math -------------------------------------------

def add(a, b, *, alpha=1):
    """``a + b`` with broadcasting (``a + alpha * b`` when ``alpha`` is given, as torch.add)."""
    if alpha != 1:
        b = mul(b, alpha)
    return REGISTRY["add"].apply(*_operands(a, b))


def sub(a, b, *, alpha=1):
    """``a - b`` with broadcasting (``a - alpha * b`` when ``alpha`` is given, as torch.sub)."""
    if alpha != 1:
        b = mul(b, alpha)
    return REGISTRY["sub"].apply(*_operands(a, b))


def mul(a, b):
    """``a * b`` with broadcasting."""
    return REGISTRY["mul"].apply(*_operands(a, b))


def div(a, b):
    """``a / b`` with broadcasting."""
    return REGISTRY["div"].apply(*_operands(a, b))


def pow(a, b):
    """``a ** b`` with broadcasting."""
    return REGISTRY["pow"].apply(*_operands(a, b))


def maximum(a, b):
    """The larger of ``a`` and ``b``, elementwise (a tie shares the gradient)."""
    return REGISTRY["maximum"].apply(*_operands(a, b))


def minimum(a, b):
    """The smaller of ``a`` and ``b``, elementwise (a tie shares the gradient)."""
    return REGISTRY["minimum"].apply(*_operands(a, b))


def matmul(a, b):
    """``a @ b``: matrix product, batched and broadcast like ``np.matmul``."""
    return REGISTRY["matmul"].apply(*_operands(a, b))


def neg(a):
    return REGISTRY["neg"].apply(a)


def exp(a):
    return REGISTRY["exp"].apply(a)


def log(a):
    return REGISTRY["log"].apply(a)


def log1p(a):
    """``log(1 + a)``, accurate for small ``a``."""
    return REGISTRY["log1p"].apply(a)


def expm1(a):
    """``exp(a) - 1``, accurate for small ``a``."""
    return REGISTRY["expm1"].apply(a)


def sqrt(a):
    return REGISTRY["sqrt"].apply(a)


def rsqrt(a):
    """``1 / sqrt(a)``."""
    return div(1.0, sqrt(a))


def square(a):
    return mul(a, a)


def reciprocal(a):
    """``1 / a``."""
    return div(1.0, a)


def abs(a):
    return REGISTRY["abs"].apply(a)


def sin(a):
    return REGISTRY["sin"].apply(a)


def cos(a):
    return REGISTRY["cos"].apply(a)


def erf(a):
    """The error function ``2/sqrt(pi) * integral_0^a e^(-t^2) dt``."""
    return REGISTRY["erf"].apply(a)


def sign(a):
    """-1, 0 or +1 per element. Piecewise constant, so it carries no gradient."""
    return Tensor(np.sign(_array(a)), dtype=_array(a).dtype, _copy=False)


def relu(a):
    return REGISTRY["relu"].apply(a)


def leaky_relu(a, negative_slope=0.01):
    return REGISTRY["leaky_relu"].apply(a, negative_slope=negative_slope)


def tanh(a):
    return REGISTRY["tanh"].apply(a)


def sigmoid(a):
    return REGISTRY["sigmoid"].apply(a)


def gelu(a, approximate="none"):
    """GELU ``a * Phi(a)``; ``approximate="tanh"`` for the tanh approximation."""
    return REGISTRY["gelu"].apply(a, approximate=approximate)


def clip(a, low=None, high=None):
    """Clamp to the numbers ``[low, high]``; the gradient passes where nothing was cut."""
    return REGISTRY["clip"].apply(a, low=low, high=high)


def clamp(a, min=None, max=None):
    """Clamp to ``[min, max]`` (torch.clamp): numbers, or tensors/arrays that broadcast.

    Tensor bounds are two ``where`` picks, so a bound that wins an element receives
    that element's gradient (torch does the same).
    """
    if min is None and max is None:
        raise ValueError("clamp needs at least one bound: pass min=..., max=... or both")
    for name, bound in (("min", min), ("max", max)):
        if isinstance(bound, (str, bytes)):
            raise TypeError(f"clamp: {name} must be a number or a tensor, got "
                            f"{type(bound).__name__} {bound!r}")
    if (min is None or np.isscalar(min)) and (max is None or np.isscalar(max)):
        return clip(a, min, max)
    a = as_tensor(a)
    out = a
    if min is not None:
        low = min if isinstance(min, Tensor) else as_tensor(np.asarray(min), dtype=a.dtype)
        out = where(_array(out) < _array(low), low, out)
    if max is not None:
        high = max if isinstance(max, Tensor) else as_tensor(np.asarray(max), dtype=a.dtype)
        out = where(_array(out) > _array(high), high, out)
    return out


def where(condition, a, b):
    """Pick from ``a`` where ``condition`` holds, else from ``b`` (gradient to the picked one)."""
    a, b = _operands(a, b)
    return REGISTRY["where"].apply(a, b, condition=np.asarray(_array(condition), dtype=bool))


def masked_fill(a, mask, value):
    """``a`` with ``value`` wherever ``mask`` is true; ``a`` gets no gradient where it was filled.

    A 0-d tensor ``value`` that requires grad receives the gradients of every filled place.
    """
    a = as_tensor(a)
    if isinstance(value, Tensor) and value.requires_grad:
        return where(mask, value, a)
    return where(mask, as_tensor(np.asarray(_array(value), dtype=a.dtype)), a)


def cast(a, dtype):
    """The same values in another dtype; the gradient is cast back."""
    return REGISTRY["cast"].apply(a, dtype=np.dtype(dtype))


# --- softmax family ---------------------------------------------------------------------

def softmax(a, axis=None, *, dim=None, dtype=None):
    """Along ``axis`` (the last by default); ``dtype`` casts the input first, as torch."""
    a = as_tensor(_in_dtype(a, dtype))
    axis = _axis(axis, dim, "softmax", -1)
    _one_axis(axis, a.ndim, "softmax")        # a clear error for a bad axis; the op keeps it
    return REGISTRY["softmax"].apply(a, axis=axis)


def log_softmax(a, axis=None, *, dim=None, dtype=None):
    """Along ``axis`` (the last by default); ``dtype`` casts the input first, as torch."""
    a = as_tensor(_in_dtype(a, dtype))
    axis = _axis(axis, dim, "log_softmax", -1)
    _one_axis(axis, a.ndim, "log_softmax")
    return REGISTRY["log_softmax"].apply(a, axis=axis)


# --- reductions ---------------------------------------------------------------------------
# axis=None (or an empty tuple, as in torch) reduces every axis.

def sum(a, axis=None, keepdims=False, *, dim=None, keepdim=None, dtype=None):
    return REGISTRY["sum"].apply(_in_dtype(a, dtype), axis=_axis(axis, dim, "sum"),
                                 keepdims=_keep(keepdims, keepdim))


def mean(a, axis=None, keepdims=False, *, dim=None, keepdim=None, dtype=None):
    return REGISTRY["mean"].apply(_in_dtype(a, dtype), axis=_axis(axis, dim, "mean"),
                                  keepdims=_keep(keepdims, keepdim))


def _not_empty(a, axis, op):
    """max/min of no values has no answer: say so, not NumPy's "zero-size array to
    reduction operation maximum which has no identity"."""
    shape = np.shape(_array(a))
    if axis is None or axis == ():
        reduced = shape
    else:
        axes = axis if isinstance(axis, (tuple, list)) else (axis,)
        reduced = [shape[x] for x in axes if isinstance(x, (int, np.integer))
                   and -len(shape) <= x < len(shape)]
    if 0 in reduced:
        raise ValueError(f"{op}: the tensor is empty (shape {shape}), so it has no {op} value; "
                         "check the data (an empty batch?) before reducing")


def amax(a, axis=None, keepdims=False, *, dim=None, keepdim=None):
    """The largest value over ``axis`` (tied maxima share the gradient)."""
    _not_empty(a, _axis(axis, dim, "amax"), "max")
    return REGISTRY["max"].apply(a, axis=_axis(axis, dim, "amax"), keepdims=_keep(keepdims, keepdim))


def amin(a, axis=None, keepdims=False, *, dim=None, keepdim=None):
    """The smallest value over ``axis`` (tied minima share the gradient)."""
    _not_empty(a, _axis(axis, dim, "amin"), "min")
    return REGISTRY["min"].apply(a, axis=_axis(axis, dim, "amin"), keepdims=_keep(keepdims, keepdim))


MaxResult = namedtuple("MaxResult", ["values", "indices"])


def _extreme(a, axis, keepdims, dim, keepdim, reduce_values, find_index):
    """NumPy's spelling (``axis=``) gives the values; torch's (``dim=``) gives (values, indices)."""
    keepdims = _keep(keepdims, keepdim)
    if dim is None:
        return reduce_values(a, axis, keepdims)
    values = reduce_values(a, dim, keepdims)
    return MaxResult(values, find_index(a, dim, keepdims))


def max(a, axis=None, keepdims=False, *, dim=None, keepdim=None):
    """``max(axis=...)``: the values, as NumPy. ``max(dim=...)``: (values, indices), as torch."""
    return _extreme(a, axis, keepdims, dim, keepdim, amax, argmax)


def min(a, axis=None, keepdims=False, *, dim=None, keepdim=None):
    """``min(axis=...)``: the values, as NumPy. ``min(dim=...)``: (values, indices), as torch."""
    return _extreme(a, axis, keepdims, dim, keepdim, amin, argmin)


def _arg_extreme(find, a, axis, keepdims, op):
    """Indices of the extreme values: integers, not differentiable."""
    data = _array(a)
    if axis is None:
        found = np.asarray(find(data))
        return Tensor(found.reshape((1,) * data.ndim) if keepdims else found, dtype=np.int64)
    axis = _one_axis(axis, data.ndim, op)
    if data.ndim == 0:
        return Tensor(np.zeros((), dtype=np.int64))
    return Tensor(find(data, axis=axis, keepdims=keepdims), dtype=np.int64)


def argmax(a, axis=None, keepdims=False, *, dim=None, keepdim=None):
    return _arg_extreme(np.argmax, a, _axis(axis, dim, "argmax"), _keep(keepdims, keepdim), "argmax")


def argmin(a, axis=None, keepdims=False, *, dim=None, keepdim=None):
    return _arg_extreme(np.argmin, a, _axis(axis, dim, "argmin"), _keep(keepdims, keepdim), "argmin")


def var(a, axis=None, keepdims=False, unbiased=True, *, dim=None, keepdim=None, correction=None):
    """Variance; unbiased (divides by n - 1) by default, as torch. ``correction`` overrides."""
    if correction is None:
        correction = 1 if unbiased else 0
    return REGISTRY["var"].apply(a, axis=_axis(axis, dim, "var"), keepdims=_keep(keepdims, keepdim),
                                 correction=correction)


def std(a, axis=None, keepdims=False, unbiased=True, *, dim=None, keepdim=None, correction=None):
    """Standard deviation, ``sqrt(var)``; unbiased by default, as torch."""
    return sqrt(var(a, axis, keepdims, unbiased, dim=dim, keepdim=keepdim, correction=correction))


def prod(a, axis=None, keepdims=False, *, dim=None, keepdim=None, dtype=None):
    return REGISTRY["prod"].apply(_in_dtype(a, dtype), axis=_axis(axis, dim, "prod"),
                                  keepdims=_keep(keepdims, keepdim))


def logsumexp(a, axis=None, keepdims=False, *, dim=None, keepdim=None):
    """``log(sum(exp(a)))`` over ``axis``, computed without overflow."""
    return REGISTRY["logsumexp"].apply(a, axis=_axis(axis, dim, "logsumexp"),
                                       keepdims=_keep(keepdims, keepdim))


def norm(a, p=2, axis=None, keepdims=False, *, dim=None, keepdim=None):
    """The p-norm over ``axis`` (all axes by default): p = 2 ("fro"), 1, inf, -inf, any p > 0."""
    axis, keepdims = _axis(axis, dim, "norm"), _keep(keepdims, keepdim)
    if p == "fro":
        p = 2
    if p == np.inf:
        return amax(abs(a), axis, keepdims)
    if p == -np.inf:
        return amin(abs(a), axis, keepdims)
    if isinstance(p, str) or not np.isfinite(p):
        raise ValueError(f"norm: p must be 'fro', inf, -inf or a number, got {p!r}")
    if p == 0:  # the number of non-zero elements: piecewise constant, no gradient
        count = sum(Tensor(_array(a) != 0, dtype=_array(a).dtype, _copy=False), axis, keepdims)
        return Tensor(count.data, dtype=count.dtype, _copy=False)
    return REGISTRY["norm"].apply(a, p=float(p), axis=axis, keepdims=keepdims)


def cumsum(a, axis=None, *, dim=None, dtype=None):
    """Running sums along ``axis``."""
    a = _in_dtype(as_tensor(a), dtype)
    axis = _axis(axis, dim, "cumsum")
    if axis is None:
        raise TypeError("cumsum: give the axis to sum along, e.g. cumsum(x, dim=0)")
    return REGISTRY["cumsum"].apply(a, axis=_one_axis(axis, a.ndim, "cumsum"))


# --- shape: the same values, moved -------------------------------------------------------

def reshape(a, shape):
    return REGISTRY["reshape"].apply(a, shape=tuple(shape))


def flatten(a, start_dim=0, end_dim=-1):
    """Merge the axes start_dim..end_dim into one (torch.flatten)."""
    a = as_tensor(a)
    start, end = _one_axis(start_dim, a.ndim, "flatten"), _one_axis(end_dim, a.ndim, "flatten")
    if start > end:
        raise ValueError(f"flatten: start_dim ({start_dim}) comes after end_dim ({end_dim}) for "
                         f"a tensor of shape {a.shape}")
    merged = int(np.prod(a.shape[start:end + 1]))
    return reshape(a, a.shape[:start] + (merged,) + a.shape[end + 1:])


def unsqueeze(a, axis=None, *, dim=None):
    """A new size-1 axis at ``axis`` (which counts the new axis: -1 appends one)."""
    a = as_tensor(a)
    axis, places = _axis(axis, dim, "unsqueeze"), a.ndim + 1
    if not isinstance(axis, (int, np.integer)) or not -places <= axis < places:
        raise IndexError(f"unsqueeze: axis {axis!r} is out of range: a new axis of a tensor with "
                         f"{a.ndim} dimensions goes at {-places}..{places - 1}")
    axis = int(axis) % places
    return reshape(a, a.shape[:axis] + (1,) + a.shape[axis:])


def squeeze(a, axis=None, *, dim=None):
    """Drop size-1 axes: all of them, or only ``axis`` (an axis of another size stays, as torch)."""
    a = as_tensor(a)
    axis = _axis(axis, dim, "squeeze")
    if axis is None:
        axes = [i for i, n in enumerate(a.shape) if n == 1]
    else:
        chosen = axis if isinstance(axis, (tuple, list)) else (axis,)
        axes = [i for i in (_one_axis(x, a.ndim, "squeeze") for x in chosen)
                if a.ndim and a.shape[i] == 1]
    return reshape(a, tuple(n for i, n in enumerate(a.shape) if i not in axes))


def permute(a, axes=None):
    """Reorder the axes (``None`` reverses them)."""
    return REGISTRY["permute"].apply(a, axes=axes)


def transpose(a, dim0, dim1):
    """Swap two axes (torch.transpose)."""
    a = as_tensor(a)
    dim0, dim1 = _one_axis(dim0, a.ndim, "transpose"), _one_axis(dim1, a.ndim, "transpose")
    order = list(range(a.ndim))
    if a.ndim:
        order[dim0], order[dim1] = order[dim1], order[dim0]
    return permute(a, tuple(order))


def expand(a, *sizes):
    """Broadcast to ``sizes`` without copying values in the math (-1 keeps a size), as torch."""
    a = as_tensor(a)
    sizes = _int_list(sizes, "expand")
    if len(sizes) < a.ndim:
        raise ValueError(f"expand: the shape {sizes} has fewer axes than the tensor {a.shape}")
    own = (None,) * (len(sizes) - a.ndim) + a.shape
    target = tuple(n if (n != -1 or old is None) else old for n, old in zip(sizes, own))
    for n, old in zip(target, own):
        if n < 0 or (old is not None and old != 1 and old != n):
            raise ValueError(f"expand: cannot expand shape {a.shape} to {sizes}; only size-1 axes "
                             "can grow (and -1 keeps an existing size)")
    return REGISTRY["expand"].apply(a, shape=target)


def repeat(a, *repeats):
    """Tile the tensor: ``repeats[i]`` copies along axis i (torch's ``Tensor.repeat``)."""
    a = as_tensor(a)
    repeats = _int_list(repeats, "repeat")
    if len(repeats) < a.ndim:
        raise ValueError(f"repeat: give at least one count per axis ({a.ndim}), got {repeats}")
    if any(n < 0 for n in repeats):
        raise ValueError(f"repeat: counts must be non-negative, got {repeats}")
    return REGISTRY["repeat"].apply(a, repeats=repeats)


def flip(a, axes):
    """Reverse the order along ``axes``."""
    a = as_tensor(a)
    axes = axes if isinstance(axes, (tuple, list)) else (axes,)
    return REGISTRY["flip"].apply(a, axes=tuple(_one_axis(x, a.ndim, "flip") for x in axes
                                               if a.ndim))


def clone(a):
    """A copy with its own storage; gradients flow back to ``a``."""
    return REGISTRY["clone"].apply(a)


def _tensor_sequence(tensors, name):
    """``tensors`` as a non-empty list of tensors, or the error torch users expect."""
    if isinstance(tensors, (Tensor, np.ndarray)):
        raise TypeError(f"{name}: expected a list or tuple of tensors, got one "
                        f"{type(tensors).__name__} of shape {tuple(tensors.shape)}; wrap it: "
                        f"{name}([a, b])")
    tensors = [as_tensor(t) for t in tensors]
    if not tensors:
        raise ValueError(f"{name}: expected a non-empty list of tensors, got an empty one")
    return tensors


def cat(tensors, axis=None, *, dim=None):
    """Join tensors along an existing axis (the first by default).

    As in torch, an empty 1-D tensor beside tensors of more dimensions is left out.
    """
    tensors = _tensor_sequence(tensors, "cat")
    if builtin_max([t.ndim for t in tensors], default=1) > 1:
        tensors = [t for t in tensors if t.shape != (0,)]
    return REGISTRY["cat"].apply(*tensors, axis=_axis(axis, dim, "cat", 0))


def stack(tensors, axis=None, *, dim=None):
    """Join same-shaped tensors along a new axis (the first by default)."""
    return REGISTRY["stack"].apply(*_tensor_sequence(tensors, "stack"),
                                   axis=_axis(axis, dim, "stack", 0))


def split(a, split_size_or_sections, axis=None, *, dim=None):
    """Pieces of ``split_size`` along ``axis`` (the last may be smaller), or of the listed sizes."""
    a = as_tensor(a)
    axis = _one_axis(_axis(axis, dim, "split", 0), a.ndim, "split")
    length = a.shape[axis]
    if isinstance(split_size_or_sections, (int, np.integer)):
        step = int(split_size_or_sections)
        if step <= 0:
            raise ValueError(f"split: split_size must be positive, got {step}")
        sizes = [builtin_min(step, length - s) for s in range(0, length, step)] or [0]
    else:
        sizes = [int(n) for n in split_size_or_sections]
        if builtin_sum(sizes) != length:
            raise ValueError(f"split: sizes {sizes} add up to {builtin_sum(sizes)}, but axis {axis} "
                             f"has length {length}")
    pieces, start = [], 0
    for n in sizes:
        index = (slice(None),) * axis + (slice(start, start + n),)
        pieces.append(getitem(a, index))
        start += n
    return tuple(pieces)


def chunk(a, chunks, axis=None, *, dim=None):
    """At most ``chunks`` pieces of equal size (the last may be smaller), as torch.chunk."""
    a = as_tensor(a)
    axis = _one_axis(_axis(axis, dim, "chunk", 0), a.ndim, "chunk")
    if chunks <= 0:
        raise ValueError(f"chunk: chunks must be positive, got {chunks}")
    length = a.shape[axis]
    step = -(-length // chunks) if length else 1
    return split(a, step, axis)


def pad(a, pad_width, value=0.0):
    """NumPy-style padding: ``pad_width`` is one (before, after) pair per axis."""
    return REGISTRY["pad"].apply(a, pad_width=pad_width, value=value)


# --- indexing ----------------------------------------------------------------------------

def getitem(a, index):
    """``a[index]``: slices, integers, integer arrays, boolean masks (tensors become arrays)."""
    if isinstance(index, Tensor):
        index = index.data
    elif isinstance(index, tuple):
        index = tuple(i.data if isinstance(i, Tensor) else i for i in index)
    return REGISTRY["getitem"].apply(a, index=index)


def _index_array(index, op):
    index = np.asarray(_array(index))
    if index.dtype.kind not in "iu":
        raise TypeError(f"{op}: the index must hold integers, got dtype {index.dtype}")
    return index.astype(np.intp, copy=False)


def gather(a, axis, index):
    """``out[i][j] = a[i][index[i][j]]`` for axis 1 (torch.gather), on any axis."""
    a = as_tensor(a)
    axis = _one_axis(axis, a.ndim, "gather")
    index = _index_array(index, "gather")
    if a.ndim == 0 and index.size:  # torch treats a 0-d input as one element along axis 0
        return reshape(gather(reshape(a, (1,)), 0, index.reshape(-1)), index.shape)
    if index.ndim != a.ndim and index.size:
        raise ValueError(f"gather: the index must have as many axes as the input ({a.ndim}), "
                         f"got shape {index.shape}")
    if index.size and (index.min() < -a.shape[axis] or index.max() >= a.shape[axis]):
        raise IndexError(f"gather: index values must lie in 0..{a.shape[axis] - 1} for axis "
                         f"{axis} of shape {a.shape}")
    return REGISTRY["gather"].apply(a, index=index % builtin_max(a.shape[axis], 1), axis=axis)


def index_select(a, axis, index):
    """The entries ``index`` (1-D integers) along ``axis``, in that order, repeats allowed."""
    a = as_tensor(a)
    axis = _one_axis(axis, a.ndim, "index_select")
    index = _index_array(index, "index_select").reshape(-1)
    return getitem(a, (slice(None),) * axis + (index,)) if a.ndim else getitem(a, ())


def _triangle(a, diagonal, keep_lower):
    a = as_tensor(a)
    if a.ndim < 2:
        raise ValueError(f"{'tril' if keep_lower else 'triu'}: needs a tensor with at least 2 "
                         f"dimensions, got shape {a.shape}")
    rows, cols = a.shape[-2:]
    keep = (np.tri(rows, cols, diagonal, dtype=bool) if keep_lower
            else ~np.tri(rows, cols, diagonal - 1, dtype=bool))
    return where(keep, a, as_tensor(np.zeros((), dtype=a.dtype)))


def tril(a, diagonal=0):
    """The lower triangle (on and below the ``diagonal``-th diagonal); zeros above."""
    return _triangle(a, diagonal, keep_lower=True)


def triu(a, diagonal=0):
    """The upper triangle (on and above the ``diagonal``-th diagonal); zeros below."""
    return _triangle(a, diagonal, keep_lower=False)


# --- products ----------------------------------------------------------------------------

def einsum(spec, *tensors):
    """Einstein summation, ``einsum("bij,bjk->bik", a, b)``; a list of tensors works too."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    return REGISTRY["einsum"].apply(*tensors, spec=spec)


def outer(a, b):
    """The outer product of two vectors: ``out[i, j] = a[i] * b[j]``."""
    a, b = as_tensor(a), as_tensor(b)
    if a.ndim != 1 or b.ndim != 1:
        raise ValueError(f"outer: needs two vectors, got shapes {a.shape} and {b.shape}")
    return mul(reshape(a, (-1, 1)), reshape(b, (1, -1)))


# --- neural-network functions: convolution, pooling, normalisation, losses (layers.py) ----
from .layers import (  # noqa: E402,F401
    conv2d, max_pool2d, avg_pool2d, dropout, embedding, layer_norm, batch_norm,
    cross_entropy, mse_loss, binary_cross_entropy_with_logits, check_reduction, REDUCTIONS)
