"""The registry of primitives and the one helper that undoes broadcasting."""
import numpy as np

from ..autograd import Function
from .axis_reductions import sum_leading

REGISTRY = {}
"""Every differentiable primitive of minigrad, by its stable lower-case name."""


def register(name):
    """Class decorator: give a Function its name and enter it in ``REGISTRY``."""
    def decorate(cls):
        if not issubclass(cls, Function):
            raise TypeError(f"only Function subclasses can be registered, got {cls!r}")
        if name in REGISTRY:
            raise ValueError(f"a primitive named {name!r} is already registered")
        cls.name = name
        REGISTRY[name] = cls
        return cls
    return decorate


def unbroadcast(grad, shape):
    """Sum ``grad`` down to ``shape``, undoing NumPy broadcasting.

    If ``b`` of shape (3,) was broadcast against (4, 3), each of its elements was
    used four times, so its gradient is the sum over the four rows. Broadcasting
    adds leading axes and stretches size-1 axes; both are summed away here.
    """
    if type(grad) is not np.ndarray:
        grad = np.asarray(grad)
    if grad.shape == shape or grad.shape == tuple(shape):
        return grad
    extra = grad.ndim - len(shape)
    if extra > 0:
        grad = sum_leading(grad, extra)
    stretched = tuple(i for i, size in enumerate(shape) if size == 1 and grad.shape[i] != 1)
    if stretched:
        grad = grad.sum(axis=stretched, keepdims=True)
    return grad.reshape(shape)
