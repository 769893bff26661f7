"""Tensors made from nothing: ``zeros``, ``ones``, ``arange``, ``randn``, ... as torch names them.

Same defaults as torch: floats in the default dtype (float32 unless
``minigrad.set_default_dtype`` says otherwise), integer ranges in int64, and
random values drawn from minigrad's own generator (``minigrad.manual_seed``).
Sizes may be given as ``zeros(2, 3)`` or ``zeros((2, 3))``; ``device`` may be
"cpu" (or left out), so torch code that names it runs unchanged.
"""
import numpy as np

from .random import generator
from .tensor import Tensor, get_default_dtype


def _sizes(size, op):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    if not all(isinstance(n, (int, np.integer)) and not isinstance(n, bool) and n >= 0 for n in size):
        raise ValueError(f"{op}: sizes must be non-negative ints, got {size!r}")
    return tuple(int(n) for n in size)


def _made(array, dtype, requires_grad, device=None):
    if device not in (None, "cpu"):
        raise ValueError(f"minigrad computes on the CPU with NumPy; got device={device!r}, "
                         "pass device='cpu' or leave it out")
    dtype = get_default_dtype() if dtype is None else np.dtype(dtype)
    return Tensor(array.astype(dtype, copy=False), requires_grad=requires_grad, dtype=dtype,
                  _copy=False)


def zeros(*size, dtype=None, requires_grad=False, device=None):
    return _made(np.zeros(_sizes(size, "zeros")), dtype, requires_grad, device)


def ones(*size, dtype=None, requires_grad=False, device=None):
    return _made(np.ones(_sizes(size, "ones")), dtype, requires_grad, device)


def empty(*size, dtype=None, requires_grad=False, device=None):
    """Like torch.empty, but filled with zeros: a value read by mistake is at least repeatable."""
    return zeros(*size, dtype=dtype, requires_grad=requires_grad, device=device)


def full(size, fill_value, dtype=None, requires_grad=False, device=None):
    """Every element ``fill_value``; an int fills int64, a bool fills bool, as torch."""
    if dtype is None and isinstance(fill_value, (bool, np.bool_)):
        dtype = np.bool_
    elif dtype is None and isinstance(fill_value, (int, np.integer)):
        dtype = np.int64
    size = _sizes(size if isinstance(size, (tuple, list)) else (size,), "full")
    return _made(np.full(size, fill_value), dtype, requires_grad, device)


def _shape(t):
    """The shape a *_like factory copies; anything without one is named, not an
    AttributeError from inside."""
    if not hasattr(t, "shape") or not hasattr(t, "dtype"):
        raise TypeError(f"a *_like factory copies the shape and dtype of a tensor, got "
                        f"{type(t).__name__}; pass a minigrad tensor (or a NumPy array)")
    return t.shape


def _like(t, dtype):
    return t.dtype if dtype is None else dtype


def _count(value, op, name):
    """A non-negative whole number of elements, as torch asks for (a float 2.5 is refused,
    not rounded down)."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
        raise ValueError(f"{op}: {name} must be a non-negative int, got {value!r}")
    return int(value)


def zeros_like(t, dtype=None, requires_grad=False, device=None):
    return zeros(_shape(t), dtype=_like(t, dtype), requires_grad=requires_grad, device=device)


def ones_like(t, dtype=None, requires_grad=False, device=None):
    return ones(_shape(t), dtype=_like(t, dtype), requires_grad=requires_grad, device=device)


def empty_like(t, dtype=None, requires_grad=False, device=None):
    return zeros_like(t, dtype=dtype, requires_grad=requires_grad, device=device)


def full_like(t, fill_value, dtype=None, requires_grad=False, device=None):
    return full(_shape(t), fill_value, dtype=_like(t, dtype), requires_grad=requires_grad,
                device=device)


def eye(n, m=None, dtype=None, requires_grad=False, device=None):
    """The identity matrix (n x m, square by default)."""
    n = _count(n, "eye", "n")
    m = n if m is None else _count(m, "eye", "m")
    return _made(np.eye(n, m), dtype, requires_grad, device)


def arange(start, end=None, step=1, dtype=None, requires_grad=False, device=None):
    """``start, start + step, ...`` below ``end``; int64 when all three are ints, as torch."""
    if end is None:
        start, end = 0, start
    if dtype is None and all(isinstance(v, (int, np.integer)) for v in (start, end, step)):
        dtype = np.int64
    if step == 0:
        raise ValueError("arange: step must not be zero")
    return _made(np.arange(start, end, step, dtype=np.float64 if dtype is None else None),
                 dtype, requires_grad, device)


def linspace(start, end, steps, dtype=None, requires_grad=False, device=None):
    """``steps`` evenly spaced values from ``start`` to ``end``, both included."""
    return _made(np.linspace(start, end, _count(steps, "linspace", "steps")), dtype,
                 requires_grad, device)


def rand(*size, dtype=None, requires_grad=False, device=None):
    """Uniform on [0, 1)."""
    return _made(generator().random(_sizes(size, "rand")), dtype, requires_grad, device)


def randn(*size, dtype=None, requires_grad=False, device=None):
    """Standard normal."""
    return _made(generator().standard_normal(_sizes(size, "randn")), dtype, requires_grad, device)


def randint(low, high=None, size=None, dtype=None, requires_grad=False, device=None):
    """Integers in ``[low, high)`` (``randint(high, size)`` starts at 0), int64 by default."""
    if size is None:  # randint(high, size)
        low, high, size = 0, low, high
    if size is None:
        raise TypeError("randint needs a size, e.g. randint(0, 10, (3,))")
    size = _sizes(size if isinstance(size, (tuple, list)) else (size,), "randint")
    values = generator().integers(low, high, size=size)
    return _made(values, np.int64 if dtype is None else dtype, requires_grad, device)


def rand_like(t, dtype=None, requires_grad=False, device=None):
    return rand(_shape(t), dtype=_like(t, dtype), requires_grad=requires_grad, device=device)


def randn_like(t, dtype=None, requires_grad=False, device=None):
    return randn(_shape(t), dtype=_like(t, dtype), requires_grad=requires_grad, device=device)


def randint_like(t, low, high=None, dtype=None, requires_grad=False, device=None):
    return randint(low, high, _shape(t), dtype=_like(t, dtype), requires_grad=requires_grad,
                   device=device)
