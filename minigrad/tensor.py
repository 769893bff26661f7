"""Tensor: a NumPy array that remembers how it was made.

The class holds storage (``data``), the accumulated gradient (``grad``) and a
link to the Function that produced it (``_node``, set by ``Function.apply`` in
autograd.py). Every arithmetic method is a thin call into a function of
``minigrad/ops/__init__.py`` that applies a registered primitive; no derivative
lives here. ``loss.backward()`` hands the walk to ``autograd.run_backward``.
"""
import itertools
import types

import numpy as np

from . import autograd


class Tensor:
    """An n-dimensional array with optional gradient tracking."""

    __array_priority__ = 1000  # make ndarray + Tensor call Tensor.__radd__
    # defaults of every tensor, read from the class until a tensor sets its own (the engine
    # makes a tensor per primitive call: fewer attributes to set); _hooks is a read-only
    # empty table until register_hook gives the tensor a dict of its own
    grad = None
    _node = None
    _retains_grad = False
    _hooks = types.MappingProxyType({})

    def __init__(self, data, requires_grad=False, dtype=None, _copy=True):
        array = _to_array(data, dtype)
        if _copy and isinstance(data, np.ndarray) and array is data:
            array = array.copy()
        if requires_grad and array.dtype.kind != "f":
            raise TypeError(f"only float tensors can require gradients, got dtype {array.dtype}; "
                            "pass dtype=np.float32 or float data")
        self.data = array
        self.grad = None
        self.requires_grad = bool(requires_grad)
        self._node = None
        self._hooks = {}
        self._retains_grad = False

    # --- basic facts -------------------------------------------------------
    shape = property(lambda self: self.data.shape)
    dtype = property(lambda self: self.data.dtype)
    ndim = property(lambda self: self.data.ndim)
    is_leaf = property(lambda self: self._node is None)

    def size(self, dim=None):
        return self.data.shape if dim is None else self.data.shape[dim]

    def numel(self):
        return int(self.data.size)

    def __len__(self):
        return len(self.data)

    def __repr__(self):
        grad = ", requires_grad=True" if self.requires_grad else ""
        return f"tensor({np.array2string(self.data, precision=4, separator=', ')}{grad})"

    def numpy(self):
        return self.data

    def item(self):
        if self.data.size != 1:
            raise ValueError(f"item() needs a tensor with one element, this one has shape {self.shape}")
        return self.data.item()

    def tolist(self):
        return self.data.tolist()

    # type conversions: to a float dtype keeps the graph (gradients are cast back);
    # to integers or booleans gives a constant, as in torch
    # (memory_format is accepted for torch code; minigrad has one layout)
    def float(self, memory_format=None): return self.to(np.float32)
    def double(self, memory_format=None): return self.to(np.float64)
    def half(self, memory_format=None): return self.to(np.float16)
    def long(self, memory_format=None): return self.to(np.int64)
    def int(self, memory_format=None): return self.to(np.int32)
    def bool(self, memory_format=None): return self.to(np.bool_)

    def to(self, *args, dtype=None, device=None, non_blocking=False, copy=False,
           memory_format=None):
        """This tensor in another dtype, as torch's ``to(dtype)``, ``to("cpu")``,
        ``to("cpu", dtype)`` or ``to(other)``; the same tensor when nothing changes."""
        flags = []
        for arg in args:
            if isinstance(arg, Tensor):
                dtype = arg.dtype
            elif isinstance(arg, bool):
                flags.append(arg)                  # non_blocking, then copy
            elif arg is None or (isinstance(arg, str) and arg.split(":")[0] in ("cpu", "cuda", "mps")):
                device = arg
            else:
                dtype = arg
        if device not in (None, "cpu"):
            raise ValueError(f"minigrad computes on the CPU with NumPy; cannot move a tensor to "
                             f"{device!r}")
        copy = copy or (len(flags) > 1 and flags[1])
        dtype = self.dtype if dtype is None else np.dtype(dtype)
        if dtype == self.dtype:
            return _ops_mod.clone(self) if copy else self
        if dtype.kind == "f" and self.dtype.kind == "f":
            return _ops_mod.cast(self, dtype)
        return Tensor(self.data.astype(dtype), dtype=dtype, _copy=False)

    def astype(self, dtype): return self.to(dtype)
    def type(self, dtype): return self.to(dtype)

    def type_as(self, other):
        return self.to(other.dtype)

    # --- gradient plumbing -------------------------------------------------
    def detach(self):
        """The same values, cut off from the graph (no gradient flows back)."""
        return Tensor(self.data, dtype=self.data.dtype, _copy=False)  # same storage, same dtype

    def requires_grad_(self, flag=True):
        if flag and self.dtype.kind != "f":
            raise TypeError(f"only float tensors can require gradients, got dtype {self.dtype}")
        self.requires_grad = bool(flag)
        return self

    def retain_grad(self):
        """Keep ``.grad`` on this non-leaf tensor after backward, as torch does."""
        self._retains_grad = True

    def register_hook(self, fn):
        """Call ``fn(grad)`` when this tensor's gradient is known; a returned array replaces it."""
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that does not require grad")
        if not callable(fn):
            raise TypeError(f"register_hook expects a function fn(grad), got "
                            f"{type(fn).__name__}; pass the function itself, not its result")
        key = next(_hook_ids)
        if type(self._hooks) is not dict:
            self._hooks = {}
        self._hooks[key] = fn
        return _Handle(self._hooks, key)

    def zero_(self):
        """Fill with zeros in place. A computed tensor stops depending on its inputs (as torch)."""
        if self.requires_grad and self._node is None and autograd.is_grad_enabled():
            raise RuntimeError("zero_(): a leaf tensor that requires grad cannot be changed in "
                               "place; do it inside `with minigrad.no_grad():`")
        self.data[...] = 0
        if self._node is not None:
            self._node, self.requires_grad = None, False
        return self

    def backward(self, grad=None):
        """Compute d(self)/d(leaf) for every leaf that requires grad; add it to ``leaf.grad``."""
        if not self.requires_grad:
            raise RuntimeError("backward() on a tensor that does not require grad: nothing it "
                               "depends on has requires_grad=True (or it was made under no_grad)")
        if grad is None:
            if self.data.size != 1:
                raise RuntimeError(
                    f"backward() without a gradient needs a scalar output, got shape {self.shape}; "
                    "reduce it first (e.g. loss.mean()) or pass grad= of the same shape")
            grad = np.ones_like(self.data)
        else:
            grad = np.asarray(grad.data if isinstance(grad, Tensor) else grad, dtype=self.dtype)
            if grad.shape != self.shape:
                raise ValueError(f"backward(grad) needs a gradient of shape {self.shape}, "
                                 f"got {grad.shape}")
        autograd.run_backward(self, grad)

    # --- operator sugar: each is one registered primitive --------------------
    def __add__(self, other): return _ops_mod.add(self, other)
    def __radd__(self, other): return _ops_mod.add(other, self)
    def __sub__(self, other): return _ops_mod.sub(self, other)
    def __rsub__(self, other): return _ops_mod.sub(other, self)
    def __mul__(self, other): return _ops_mod.mul(self, other)
    def __rmul__(self, other): return _ops_mod.mul(other, self)
    def __truediv__(self, other): return _ops_mod.div(self, other)
    def __rtruediv__(self, other): return _ops_mod.div(other, self)
    def __pow__(self, other): return _ops_mod.pow(self, other)
    def __rpow__(self, other): return _ops_mod.pow(other, self)
    def __matmul__(self, other): return _ops_mod.matmul(self, other)
    def __rmatmul__(self, other): return _ops_mod.matmul(other, self)
    def __neg__(self): return _ops_mod.neg(self)
    def __getitem__(self, index): return _ops_mod.getitem(self, index)

    # comparisons give boolean tensors and are not differentiable
    def _compare(self, other, fn):
        return Tensor(fn(self.data, other.data if isinstance(other, Tensor) else other))

    def __lt__(self, other): return self._compare(other, np.less)
    def __le__(self, other): return self._compare(other, np.less_equal)
    def __gt__(self, other): return self._compare(other, np.greater)
    def __ge__(self, other): return self._compare(other, np.greater_equal)
    def __eq__(self, other): return self._compare(other, np.equal)
    def __ne__(self, other): return self._compare(other, np.not_equal)
    __hash__ = object.__hash__

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def __bool__(self):
        if self.data.size != 1:
            raise ValueError(f"the truth value of a tensor of shape {self.shape} is ambiguous")
        return bool(self.data)

    # --- methods: each calls the function of the same name in minigrad/ops/__init__.py ------
    # Reductions take NumPy's axis=/keepdims= or torch's dim=/keepdim=.
    def sum(self, axis=None, keepdims=False, *, dim=None, keepdim=None, dtype=None):
        return _ops_mod.sum(self, axis, keepdims, dim=dim, keepdim=keepdim, dtype=dtype)

    def mean(self, axis=None, keepdims=False, *, dim=None, keepdim=None, dtype=None):
        return _ops_mod.mean(self, axis, keepdims, dim=dim, keepdim=keepdim, dtype=dtype)

    def max(self, axis=None, keepdims=False, *, dim=None, keepdim=None):
        """``axis=``: the maximum values (NumPy). ``dim=``: (values, indices), as torch."""
        return _ops_mod.max(self, axis, keepdims, dim=dim, keepdim=keepdim)

    def min(self, axis=None, keepdims=False, *, dim=None, keepdim=None):
        """``axis=``: the minimum values (NumPy). ``dim=``: (values, indices), as torch."""
        return _ops_mod.min(self, axis, keepdims, dim=dim, keepdim=keepdim)

    def amax(self, axis=None, keepdims=False, *, dim=None, keepdim=None):
        return _ops_mod.amax(self, axis, keepdims, dim=dim, keepdim=keepdim)

    def amin(self, axis=None, keepdims=False, *, dim=None, keepdim=None):
        return _ops_mod.amin(self, axis, keepdims, dim=dim, keepdim=keepdim)

    def argmax(self, axis=None, keepdims=False, *, dim=None, keepdim=None):
        return _ops_mod.argmax(self, axis, keepdims, dim=dim, keepdim=keepdim)

    def argmin(self, axis=None, keepdims=False, *, dim=None, keepdim=None):
        return _ops_mod.argmin(self, axis, keepdims, dim=dim, keepdim=keepdim)

    def var(self, axis=None, keepdims=False, unbiased=True, *, dim=None, keepdim=None,
            correction=None):
        """Unbiased (divides by n - 1) unless ``unbiased=False``, as torch."""
        return _ops_mod.var(self, axis, keepdims, unbiased, dim=dim, keepdim=keepdim,
                            correction=correction)

    def std(self, axis=None, keepdims=False, unbiased=True, *, dim=None, keepdim=None,
            correction=None):
        return _ops_mod.std(self, axis, keepdims, unbiased, dim=dim, keepdim=keepdim,
                            correction=correction)

    def prod(self, axis=None, keepdims=False, *, dim=None, keepdim=None, dtype=None):
        return _ops_mod.prod(self, axis, keepdims, dim=dim, keepdim=keepdim, dtype=dtype)

    def logsumexp(self, axis=None, keepdims=False, *, dim=None, keepdim=None):
        return _ops_mod.logsumexp(self, axis, keepdims, dim=dim, keepdim=keepdim)

    def norm(self, p=2, axis=None, keepdims=False, *, dim=None, keepdim=None):
        return _ops_mod.norm(self, p, axis, keepdims, dim=dim, keepdim=keepdim)

    def cumsum(self, axis=None, *, dim=None, dtype=None):
        return _ops_mod.cumsum(self, axis, dim=dim, dtype=dtype)

    def softmax(self, axis=None, *, dim=None, dtype=None):
        return _ops_mod.softmax(self, axis, dim=dim, dtype=dtype)

    def log_softmax(self, axis=None, *, dim=None, dtype=None):
        return _ops_mod.log_softmax(self, axis, dim=dim, dtype=dtype)

    # elementwise math
    def exp(self): return _ops_mod.exp(self)
    def log(self): return _ops_mod.log(self)
    def log1p(self): return _ops_mod.log1p(self)
    def expm1(self): return _ops_mod.expm1(self)
    def sqrt(self): return _ops_mod.sqrt(self)
    def rsqrt(self): return _ops_mod.rsqrt(self)
    def square(self): return _ops_mod.square(self)
    def reciprocal(self): return _ops_mod.reciprocal(self)
    def abs(self): return _ops_mod.abs(self)
    def sign(self): return _ops_mod.sign(self)
    def sin(self): return _ops_mod.sin(self)
    def cos(self): return _ops_mod.cos(self)
    def erf(self): return _ops_mod.erf(self)
    def tanh(self): return _ops_mod.tanh(self)
    def sigmoid(self): return _ops_mod.sigmoid(self)
    def relu(self): return _ops_mod.relu(self)
    def pow(self, exponent): return _ops_mod.pow(self, exponent)

    def clamp(self, min=None, max=None):
        """Clamp to ``[min, max]``: numbers, or tensors that broadcast against this one."""
        return _ops_mod.clamp(self, min, max)

    def clip(self, low=None, high=None):
        return _ops_mod.clamp(self, low, high)

    def masked_fill(self, mask, value): return _ops_mod.masked_fill(self, mask, value)
    def tril(self, diagonal=0): return _ops_mod.tril(self, diagonal)
    def triu(self, diagonal=0): return _ops_mod.triu(self, diagonal)

    # shape: the same values, moved
    def reshape(self, *shape):
        shape = shape[0] if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape
        return _ops_mod.reshape(self, shape)

    def view(self, *shape):
        """The same as ``reshape``: minigrad has no separate views."""
        return self.reshape(*shape)

    def view_as(self, other): return _ops_mod.reshape(self, other.shape)
    def reshape_as(self, other): return _ops_mod.reshape(self, other.shape)

    def flatten(self, start_dim=0, end_dim=-1):
        return _ops_mod.flatten(self, start_dim, end_dim)

    def transpose(self, *axes):
        """``transpose(d0, d1)`` swaps two axes as in torch; no arguments reverse them all."""
        if len(axes) == 2:
            return _ops_mod.transpose(self, *axes)
        return _ops_mod.permute(self, tuple(axes) if axes else None)

    def permute(self, *axes):
        axes = axes[0] if len(axes) == 1 and isinstance(axes[0], (tuple, list)) else axes
        return _ops_mod.permute(self, tuple(axes))

    T = property(lambda self: _ops_mod.permute(self, None))

    def squeeze(self, axis=None, *, dim=None): return _ops_mod.squeeze(self, axis, dim=dim)
    def unsqueeze(self, axis=None, *, dim=None): return _ops_mod.unsqueeze(self, axis, dim=dim)
    def expand(self, *sizes): return _ops_mod.expand(self, *sizes)
    def expand_as(self, other): return _ops_mod.expand(self, other.shape)
    def repeat(self, *repeats): return _ops_mod.repeat(self, *repeats)

    def flip(self, *axes, dims=None):
        axes = axes[0] if len(axes) == 1 and isinstance(axes[0], (tuple, list)) else axes
        return _ops_mod.flip(self, axes if dims is None else dims)

    def split(self, split_size, axis=None, *, dim=None):
        return _ops_mod.split(self, split_size, axis, dim=dim)

    def chunk(self, chunks, axis=None, *, dim=None):
        return _ops_mod.chunk(self, chunks, axis, dim=dim)

    def gather(self, dim, index): return _ops_mod.gather(self, dim, index)
    def index_select(self, dim, index): return _ops_mod.index_select(self, dim, index)
    def clone(self): return _ops_mod.clone(self)

    def contiguous(self):
        """Every minigrad tensor already behaves as contiguous: the same tensor."""
        return self

    def dim(self):
        return self.data.ndim


def as_tensor(data, dtype=None):
    """Wrap constants (Python numbers, arrays) as tensors that need no gradient.

    A Python scalar takes the default float dtype so ``x * 2`` keeps x's dtype.
    """
    if isinstance(data, Tensor):
        return data
    if isinstance(data, (int, float)) and not isinstance(data, bool) and dtype is None:
        return Tensor(np.asarray(data, dtype=_default_dtype), _copy=False)
    return Tensor(data, dtype=dtype, _copy=False)


def tensor(data, requires_grad=False, dtype=None):
    """Make a tensor from data, as torch.tensor: Python floats become float32 (the default
    dtype), a NumPy array keeps its dtype, integers become int64."""
    return Tensor(data, requires_grad=requires_grad, dtype=dtype)


def _from_array(array, requires_grad=False):
    """Fast path for the engine: wrap an ndarray the engine just made (no checks, no copy)."""
    t = Tensor.__new__(Tensor)
    t.data, t.requires_grad = array, requires_grad
    return t


# --- dtypes, and what a new tensor's array is made of ----------------------------------

_default_dtype = np.dtype(np.float32)
_hook_ids = itertools.count()


def set_default_dtype(dtype):
    """Float dtype for new float tensors and parameters (float32 unless changed)."""
    global _default_dtype
    dtype = np.dtype(dtype)
    if dtype.kind != "f":
        raise TypeError(f"the default dtype must be a float dtype, got {dtype}")
    _default_dtype = dtype


def get_default_dtype():
    return _default_dtype


def _to_array(data, dtype):
    """The array a new tensor holds, with torch's dtype rules.

    Arrays (NumPy, torch, another Tensor) keep their dtype: float64 stays float64.
    Python floats and lists of them take the default dtype (float32); Python
    integers become int64, booleans stay boolean.
    """
    if isinstance(data, Tensor):
        data = data.data
    elif hasattr(data, "detach") and hasattr(data, "cpu") and hasattr(data, "numpy"):
        data = data.detach().cpu().numpy()  # a torch tensor
    if data is None:
        raise TypeError("cannot make a tensor from None; pass numbers, a (nested) list of "
                        "numbers or an array")
    keeps_dtype = isinstance(data, (np.ndarray, np.generic))
    array = np.asarray(data)
    if array.dtype == object and any(v is None for v in array.flat):
        raise TypeError("cannot make a tensor from data that hold None (it would become NaN); "
                        "replace the missing values with numbers first")
    if dtype is not None:
        return array.astype(dtype, copy=False)
    if array.dtype.kind == "f" and keeps_dtype:
        return array
    if array.dtype.kind == "f" or array.dtype == object:
        return array.astype(_default_dtype, copy=False)
    if array.dtype.kind in "iu":
        return array.astype(np.int64, copy=False)
    if array.dtype.kind == "b":
        return array
    raise TypeError(f"cannot make a tensor from data of dtype {array.dtype}; "
                    "expected floats, integers or booleans")


class _Handle:
    def __init__(self, table, key):
        self._table, self._key = table, key

    def remove(self):
        self._table.pop(self._key, None)


# the ops package imports this module, so it is bound last
from . import ops as _ops_mod  # noqa: E402
