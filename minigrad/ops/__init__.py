"""minigrad's primitives, one file per family, and plain functions that apply them.

``REGISTRY`` maps each primitive's name to its Function class. Everything else in
minigrad (Tensor methods, nn layers, losses) is composed of these functions.
"""
import numpy as np

from ..tensor import Tensor, as_tensor
from .registry import REGISTRY, register, unbroadcast
from . import elementwise as _elementwise
from . import activation as _activation
from . import reduce as _reduce
from . import shape as _shape
from . import linalg as _linalg

__all__ = ["REGISTRY", "register", "unbroadcast"]


def _pair(a, b):
    """Tensors for a binary op; a Python number takes the dtype of the tensor beside it."""
    if isinstance(a, Tensor) and not isinstance(b, Tensor) and np.isscalar(b):
        b = as_tensor(b, dtype=a.dtype if a.dtype.kind == "f" else None)
    if isinstance(b, Tensor) and not isinstance(a, Tensor) and np.isscalar(a):
        a = as_tensor(a, dtype=b.dtype if b.dtype.kind == "f" else None)
    return a, b


def _binary(name):
    def apply(a, b):
        return REGISTRY[name].apply(*_pair(a, b))
    apply.__name__ = name
    apply.__doc__ = f"Elementwise {name} with broadcasting."
    return apply


def _unary(name):
    def apply(a, **kwargs):
        return REGISTRY[name].apply(a, **kwargs)
    apply.__name__ = name
    apply.__doc__ = f"Apply the {name!r} primitive."
    return apply


add, sub, mul, div, pow, maximum, minimum, matmul = (
    _binary(n) for n in ("add", "sub", "mul", "div", "pow", "maximum", "minimum", "matmul"))
neg, exp, log, sqrt, abs, relu, tanh, sigmoid = (
    _unary(n) for n in ("neg", "exp", "log", "sqrt", "abs", "relu", "tanh", "sigmoid"))


def leaky_relu(a, negative_slope=0.01):
    return REGISTRY["leaky_relu"].apply(a, negative_slope=negative_slope)


def clip(a, low=None, high=None):
    return REGISTRY["clip"].apply(a, low=low, high=high)


def where(condition, a, b):
    """Pick from ``a`` where ``condition`` holds, else from ``b`` (gradient to the picked one)."""
    condition = condition.data if isinstance(condition, Tensor) else condition
    a, b = _pair(a, b)
    return REGISTRY["where"].apply(a, b, condition=np.asarray(condition, dtype=bool))


def cast(a, dtype):
    return REGISTRY["cast"].apply(a, dtype=np.dtype(dtype))


def softmax(a, axis=-1):
    return REGISTRY["softmax"].apply(a, axis=axis)


def log_softmax(a, axis=-1):
    return REGISTRY["log_softmax"].apply(a, axis=axis)


def sum(a, axis=None, keepdims=False):
    return REGISTRY["sum"].apply(a, axis=axis, keepdims=keepdims)


def mean(a, axis=None, keepdims=False):
    return REGISTRY["mean"].apply(a, axis=axis, keepdims=keepdims)


def max(a, axis=None, keepdims=False):
    return REGISTRY["max"].apply(a, axis=axis, keepdims=keepdims)


def var(a, axis=None, keepdims=False, unbiased=False):
    return REGISTRY["var"].apply(a, axis=axis, keepdims=keepdims, unbiased=unbiased)


def reshape(a, shape):
    return REGISTRY["reshape"].apply(a, shape=tuple(shape))


def permute(a, axes=None):
    return REGISTRY["permute"].apply(a, axes=axes)


def getitem(a, index):
    if isinstance(index, Tensor):
        index = index.data
    elif isinstance(index, tuple):
        index = tuple(i.data if isinstance(i, Tensor) else i for i in index)
    return REGISTRY["getitem"].apply(a, index=index)


def cat(tensors, axis=0):
    return REGISTRY["cat"].apply(*tensors, axis=axis)


def stack(tensors, axis=0):
    return REGISTRY["stack"].apply(*tensors, axis=axis)


def pad(a, pad_width, value=0.0):
    """NumPy-style padding: ``pad_width`` is one (before, after) pair per axis."""
    return REGISTRY["pad"].apply(a, pad_width=pad_width, value=value)
