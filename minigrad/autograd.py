"""The autograd core: Function, Context, no_grad and the backward pass.

Reverse-mode differentiation in three ideas:

1. Every differentiable operation is a ``Function`` with a ``forward`` that maps
   NumPy arrays to a NumPy array and a ``backward`` that maps the gradient of
   the output to one gradient per input (the vector-Jacobian product).
2. ``Function.apply`` runs ``forward`` and, when any input needs a gradient,
   remembers on the output which function made it and from which inputs.
3. ``backward`` walks that record from the loss back to the leaves, in reverse
   topological order (a tensor's turn comes when all of its uses have handed their
   gradients back), handing each node the *sum* of the gradients of all its uses
   before calling its function's backward.

The walk is iterative (no recursion), so graphs of any depth work. The hooks
that debugging tools use (watching every op, swapping a backward) come last in
this file.
"""
import contextlib

import numpy as np

_grad_enabled = True


# --- idea 1 and 2: a Function, and the record apply() leaves on its output ---------------

class Context:
    """Scratch space a Function's forward leaves for its backward.

    The two defaults are class attributes (tuples, never changed in place), so making a
    Context, once per primitive call, runs no ``__init__``.
    """

    saved_tensors = ()
    needs_input_grad = ()

    def save_for_backward(self, *arrays):
        self.saved_tensors = arrays


class Node:
    """What the graph remembers about how a tensor was made."""

    __slots__ = ("function", "ctx", "parents")

    def __init__(self, function, ctx, parents):
        self.function, self.ctx, self.parents = function, ctx, parents


class Function:
    """Base class of every differentiable operation, built-in or user-written.

    Subclasses define two static methods::

        forward(ctx, *arrays, **kwargs) -> np.ndarray
        backward(ctx, grad) -> tuple with one gradient (or None) per array input

    Built-in primitives carry a ``name`` and live in ``minigrad.ops.REGISTRY``
    (swapping a registered class's backward changes that gradient everywhere:
    ``backward_of``, at the end of this file).
    """

    name = None  # set by minigrad.ops.register for built-in primitives

    @staticmethod
    def forward(ctx, *arrays, **kwargs):
        raise NotImplementedError("a Function subclass must define forward(ctx, *arrays)")

    @staticmethod
    def backward(ctx, grad):
        raise NotImplementedError("a Function subclass must define backward(ctx, grad)")

    @classmethod
    def op_name(cls):
        return cls.name or cls.__name__

    @classmethod
    def apply(cls, *inputs, **kwargs):
        tensors = [x if isinstance(x, Tensor) else as_tensor(x) for x in inputs]
        ctx = Context()
        needs = ctx.needs_input_grad = tuple([t.requires_grad for t in tensors])
        out_data = cls.forward(ctx, *[t.data for t in tensors], **kwargs)
        if type(out_data) is not np.ndarray:
            out_data = np.asarray(out_data)
        requires_grad = _grad_enabled and True in needs
        out = _from_array(out_data, requires_grad)
        if requires_grad:
            out._node = Node(cls, ctx, tensors)   # idea 2: remember how `out` was made
        if _op_observers:                         # debugging tools watching (end of file)
            _tell_observers(cls, tensors, kwargs, out_data)
        return out


# --- idea 3: the backward walk ---------------------------------------------------------------

def run_backward(root, grad):
    """Propagate ``grad`` (dL/droot) to every tensor ``root`` depends on.

    A tensor's turn comes once every use of it has handed its gradient back (its
    count in ``waiting`` drops to 0), so each tensor comes after all of its users.
    """
    waiting = _count_uses(root)                  # tensor id -> uses not yet handed back
    grads = {id(root): grad}                     # gradients waiting for their tensor's turn
    summed = set()   # tensors whose waiting gradient is a sum made by accumulate, here
    ready = [root]
    while ready:
        tensor = ready.pop()
        node = tensor._node
        g = grads.pop(id(tensor), None)
        if g is not None:
            if node is None or tensor._hooks or tensor._retains_grad:
                g = _arrive(tensor, g)           # hooks; leaves store .grad
            if node is not None:
                for parent, parent_grad in _input_gradients(node, g):
                    key = id(parent)
                    existing = grads.get(key)
                    if existing is None:         # the first use to hand a gradient back
                        grads[key] = parent_grad
                    elif key in summed and accumulate is _add_gradients:
                        existing += parent_grad  # a third use or more: add into the sum
                    else:
                        total = grads[key] = accumulate(existing, parent_grad)
                        if total is not existing and total is not parent_grad:
                            summed.add(key)
        if node is None:
            continue
        for parent in node.parents:              # this use of each parent is now accounted for
            if parent.requires_grad:
                key = id(parent)
                left = waiting[key] - 1
                waiting[key] = left
                if not left:
                    ready.append(parent)


def _count_uses(root):
    """For each tensor ``root`` depends on that needs a gradient: how many uses it has."""
    uses, stack = {}, [root]
    while stack:
        node = stack.pop()._node
        if node is None:
            continue
        for parent in node.parents:
            if parent.requires_grad:
                key = id(parent)
                if key in uses:
                    uses[key] += 1
                else:
                    uses[key] = 1
                    stack.append(parent)
    return uses


def accumulate(existing, new):
    """Add a gradient arriving from another use of the same tensor.

    A tensor used twice (``x * x``, a shared layer) receives one gradient per
    use; the chain rule says they add up. Kept as a named function so that the
    bug catalogue can show what happens when they are overwritten instead.

    The sum is a new array (``existing`` and ``new`` may be arrays a backward
    also handed elsewhere), so the engine adds any later use straight into it.
    """
    if existing is None:
        return new
    if existing.shape == new.shape and existing.dtype == new.dtype:
        return np.add(existing, new, out=_buffers.empty_like(existing))
    return existing + new


_add_gradients = accumulate   # the engine's own: its sums are new arrays, safe to add into


def _arrive(tensor, grad):
    """The full gradient of ``tensor`` is known: run its hooks; a leaf keeps it in ``.grad``."""
    if tensor._hooks:
        for hook in list(tensor._hooks.values()):
            replaced = hook(grad)
            if replaced is not None:
                grad = _as_gradient_array(replaced)
    if tensor._node is None or tensor._retains_grad:
        stored = grad.astype(tensor.dtype, copy=False)
        tensor.grad = _buffers.copy(stored) if tensor.grad is None else tensor.grad + stored
    return grad


def _input_gradients(node, grad):
    """(parent, gradient) for each input of ``node`` that needs one: its function's backward.

    The backward runs with recording off (its gradients are plain arrays, not
    graph). The flag is set directly rather than with ``no_grad()``: this runs
    once per node of every backward pass, and a generator-based context manager
    costs more than the small backward ops it wraps.
    """
    global _grad_enabled
    previous, _grad_enabled = _grad_enabled, False
    try:
        input_grads = backward_of(node.function)(node.ctx, grad)
    finally:
        _grad_enabled = previous
    if not isinstance(input_grads, tuple):
        input_grads = (input_grads,)
    if len(input_grads) < len(node.parents):
        raise ValueError(
            f"backward of '{node.function.op_name()}' returned {len(input_grads)} gradients "
            f"for {len(node.parents)} inputs; return one per input (None where there is none)")
    pairs = []
    for index, (parent, parent_grad) in enumerate(zip(node.parents, input_grads)):
        if parent_grad is None or not parent.requires_grad:
            continue
        parent_grad = _as_gradient_array(parent_grad)
        if parent_grad.shape != parent.data.shape:
            raise ValueError(
                f"backward of '{node.function.op_name()}' returned a gradient of shape "
                f"{parent_grad.shape} for input {index}, whose shape is {parent.shape}; every "
                "gradient must have its input's shape (undo broadcasting with "
                "minigrad.ops.unbroadcast)")
        if parent_grad.dtype != parent.data.dtype:
            parent_grad = parent_grad.astype(parent.data.dtype)
        pairs.append((parent, parent_grad))
    return pairs


def _as_gradient_array(grad):
    """A backward or hook may return an ndarray (the usual case), a Tensor or a number."""
    if type(grad) is np.ndarray:
        return grad
    return np.asarray(grad.data if isinstance(grad, Tensor) else grad)


# --- switching the recording off -----------------------------------------------------------

def is_grad_enabled():
    return _grad_enabled


@contextlib.contextmanager
def no_grad():
    """Run operations without recording them for backward (inference, updates)."""
    global _grad_enabled
    previous, _grad_enabled = _grad_enabled, False
    try:
        yield
    finally:
        _grad_enabled = previous


@contextlib.contextmanager
def enable_grad():
    global _grad_enabled
    previous, _grad_enabled = _grad_enabled, True
    try:
        yield
    finally:
        _grad_enabled = previous


# --- for debugging tools (nndebug.locate, the bug catalogue) ----------------------------------

def backward_of(function):
    """The backward to run for ``function``: for a primitive, the one REGISTRY holds now.

    Looking it up at every call is what lets ``minigrad.bugs.plant`` (and a user)
    swap ``REGISTRY[name].backward`` and change that gradient everywhere.
    """
    registered = REGISTRY.get(function.name) if function.name else None
    return (registered or function).backward


_op_observers = []


@contextlib.contextmanager
def observe_ops(callback):
    """Call ``callback(record)`` for every Function applied inside the block.

    ``record`` is an ``OpRecord``. Debugging tools use this to see which
    primitives a module ran, on which arrays, so each can be checked alone.
    """
    _op_observers.append(callback)
    try:
        yield
    finally:
        _op_observers.remove(callback)


class OpRecord:
    """One application of a Function: what ran, on what, and what came out."""

    __slots__ = ("function", "inputs", "kwargs", "output")

    def __init__(self, function, inputs, kwargs, output):
        self.function, self.inputs, self.kwargs, self.output = function, inputs, kwargs, output

    @property
    def name(self):
        return self.function.op_name()


def _tell_observers(function, tensors, kwargs, out_data):
    record = OpRecord(function, tuple(t.data for t in tensors), dict(kwargs), out_data)
    for observe in list(_op_observers):
        observe(record)


# Tensor and REGISTRY are defined in modules that import this one; bind them at the end.
from .tensor import Tensor, as_tensor, _from_array  # noqa: E402
from .ops.registry import REGISTRY  # noqa: E402
from .ops import buffers as _buffers  # noqa: E402
