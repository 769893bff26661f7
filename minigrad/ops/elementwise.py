"""Elementwise arithmetic. Each backward is the local derivative times ``grad``.

Binary ops broadcast in forward, so each backward passes its gradients through
``unbroadcast`` to give every input a gradient of its own shape. (``broadcasting``,
at the end of this file, only turns NumPy's shape error into one that explains it.)
"""
import numpy as np

from ..autograd import Function
from . import buffers
from .registry import register, unbroadcast


@register("add")
class Add(Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.shapes = (a.shape, b.shape)
        return broadcasting("add", np.add, a, b)

    @staticmethod
    def backward(ctx, grad):  # d(a+b)/da = 1, d(a+b)/db = 1
        needs_a, needs_b = ctx.needs_input_grad   # a constant (a mask, a number) gets none
        return (unbroadcast(grad, ctx.shapes[0]) if needs_a else None,
                unbroadcast(grad, ctx.shapes[1]) if needs_b else None)


@register("sub")
class Sub(Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.shapes = (a.shape, b.shape)
        return broadcasting("sub", np.subtract, a, b)

    @staticmethod
    def backward(ctx, grad):  # d(a-b)/da = 1, d(a-b)/db = -1
        needs_a, needs_b = ctx.needs_input_grad
        return (unbroadcast(grad, ctx.shapes[0]) if needs_a else None,
                unbroadcast(np.negative(grad, out=buffers.empty_like(grad)), ctx.shapes[1])
                if needs_b else None)


@register("mul")
class Mul(Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return broadcasting("mul", np.multiply, a, b)

    @staticmethod
    def backward(ctx, grad):  # d(ab)/da = b, d(ab)/db = a
        a, b = ctx.saved_tensors
        needs_a, needs_b = ctx.needs_input_grad   # x * 0.5: the number needs no gradient
        return (unbroadcast(broadcasting("mul", np.multiply, grad, b), a.shape) if needs_a else None,
                unbroadcast(broadcasting("mul", np.multiply, grad, a), b.shape) if needs_b else None)


@register("div")
class Div(Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return broadcasting("div", np.divide, a, b)

    @staticmethod
    def backward(ctx, grad):  # d(a/b)/da = 1/b, d(a/b)/db = -a/b^2
        a, b = ctx.saved_tensors
        needs_a, needs_b = ctx.needs_input_grad
        return (unbroadcast(broadcasting("div", np.divide, grad, b), a.shape) if needs_a else None,
                unbroadcast(-grad * a / (b * b), b.shape) if needs_b else None)


@register("neg")
class Neg(Function):
    @staticmethod
    def forward(ctx, a):
        return -a

    @staticmethod
    def backward(ctx, grad):
        return (-grad,)


@register("pow")
class Pow(Function):
    @staticmethod
    def forward(ctx, a, b):
        out = broadcasting("pow", np.power, a, b)
        ctx.save_for_backward(a, b, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        # d(a^b)/da = b a^(b-1);  d(a^b)/db = a^b ln(a), only defined for a > 0
        a, b, out = ctx.saved_tensors
        grad_a = grad_b = None
        if ctx.needs_input_grad[0]:
            with np.errstate(divide="ignore", invalid="ignore"):
                local = b * np.power(a, b - 1)
            local = np.where(b == 0, 0, local)  # a^0 is constant: 0, not 0 * 0^-1 = nan at a = 0
            grad_a = unbroadcast(grad * local, a.shape)
        if ctx.needs_input_grad[1]:
            safe_log = np.log(np.where(a > 0, a, 1))
            grad_b = unbroadcast(grad * out * safe_log, b.shape)
        return grad_a, grad_b


@register("exp")
class Exp(Function):
    @staticmethod
    def forward(ctx, a):
        out = np.exp(a)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):  # d(e^a)/da = e^a
        (out,) = ctx.saved_tensors
        return (grad * out,)


@register("log")
class Log(Function):
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return np.log(a)

    @staticmethod
    def backward(ctx, grad):  # d(ln a)/da = 1/a
        (a,) = ctx.saved_tensors
        return (grad / a,)


@register("log1p")
class Log1p(Function):
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return np.log1p(a)

    @staticmethod
    def backward(ctx, grad):  # d ln(1 + a)/da = 1/(1 + a)
        (a,) = ctx.saved_tensors
        return (grad / (1 + a),)


@register("expm1")
class Expm1(Function):
    @staticmethod
    def forward(ctx, a):
        out = np.expm1(a)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):  # d(e^a - 1)/da = e^a = out + 1
        (out,) = ctx.saved_tensors
        return (grad * (out + 1),)


@register("sin")
class Sin(Function):
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return np.sin(a)

    @staticmethod
    def backward(ctx, grad):  # d sin(a)/da = cos(a)
        (a,) = ctx.saved_tensors
        return (grad * np.cos(a),)


@register("cos")
class Cos(Function):
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return np.cos(a)

    @staticmethod
    def backward(ctx, grad):  # d cos(a)/da = -sin(a)
        (a,) = ctx.saved_tensors
        return (-grad * np.sin(a),)


@register("sqrt")
class Sqrt(Function):
    @staticmethod
    def forward(ctx, a):
        out = np.sqrt(a)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):  # d(sqrt a)/da = 1 / (2 sqrt a)
        (out,) = ctx.saved_tensors
        return (grad / (2 * out),)


@register("abs")
class Abs(Function):
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return np.abs(a)

    @staticmethod
    def backward(ctx, grad):  # d|a|/da = sign(a), 0 at the kink as torch does
        (a,) = ctx.saved_tensors
        return (grad * np.sign(a),)


@register("maximum")
class Maximum(Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return broadcasting("maximum", np.maximum, a, b)

    @staticmethod
    def backward(ctx, grad):
        # the larger input takes the gradient; a tie splits it in half, as torch does
        a, b = ctx.saved_tensors
        share_a = np.where(a > b, 1.0, np.where(a == b, 0.5, 0.0))
        return unbroadcast(grad * share_a, a.shape), unbroadcast(grad * (1 - share_a), b.shape)


@register("minimum")
class Minimum(Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return broadcasting("minimum", np.minimum, a, b)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        share_a = np.where(a < b, 1.0, np.where(a == b, 0.5, 0.0))
        return unbroadcast(grad * share_a, a.shape), unbroadcast(grad * (1 - share_a), b.shape)


@register("clip")
class Clip(Function):
    @staticmethod
    def forward(ctx, a, low=None, high=None):
        ctx.save_for_backward(a)
        ctx.low, ctx.high = low, high
        return np.clip(a, low, high).astype(a.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):  # gradient passes only where the value was not clipped
        (a,) = ctx.saved_tensors
        inside = np.ones(a.shape, dtype=bool)
        if ctx.low is not None:
            inside &= a >= ctx.low
        if ctx.high is not None:
            inside &= a <= ctx.high
        return (grad * inside,)


@register("where")
class Where(Function):
    @staticmethod
    def forward(ctx, a, b, condition=None):
        ctx.condition = np.asarray(condition, dtype=bool)
        check_broadcast("where", a, b)
        ctx.shapes = (a.shape, b.shape)
        return np.where(ctx.condition, a, b)

    @staticmethod
    def backward(ctx, grad):  # each element's gradient goes to the branch it came from
        zero = np.zeros_like(grad)
        return (unbroadcast(np.where(ctx.condition, grad, zero), ctx.shapes[0]),
                unbroadcast(np.where(ctx.condition, zero, grad), ctx.shapes[1]))


@register("cast")
class Cast(Function):
    @staticmethod
    def forward(ctx, a, dtype=None):
        ctx.dtype = a.dtype
        return a.astype(dtype)

    @staticmethod
    def backward(ctx, grad):
        return (grad.astype(ctx.dtype),)


# --- shape errors that explain broadcasting ----------------------------------------------

def check_broadcast(op, a, b):
    """Raise an error that explains broadcasting when ``a`` and ``b`` cannot be combined."""
    try:
        np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        clash = next(-i for i in range(1, min(a.ndim, b.ndim) + 1)
                     if a.shape[-i] != b.shape[-i] and 1 not in (a.shape[-i], b.shape[-i]))
        raise ValueError(
            f"{op}: cannot broadcast shapes {a.shape} and {b.shape}: axes are matched from the "
            f"right and each pair must be equal or contain a 1, but axis {clash} has "
            f"{a.shape[clash]} vs {b.shape[clash]}. Hint: reshape one operand (e.g. add an axis "
            "with x.reshape(..., 1)) or transpose it so the matching axes line up") from None


def broadcasting(op, fn, a, b):
    """``fn(a, b)`` for a NumPy function that broadcasts, with the explained error above.

    The shapes are checked only when NumPy raises: checking them before every call
    would cost as much as the arithmetic itself on the small arrays of a layer. A large
    result goes into a reused buffer (buffers.py) when its shape and dtype are plain to
    see: same dtypes, and one operand already has the result's shape.
    """
    try:
        out = _output_buffer(a, b)
        return fn(a, b) if out is None else fn(a, b, out=out)
    except ValueError:
        check_broadcast(op, a, b)  # raises if the shapes clash
        raise                      # any other ValueError is NumPy's own


def _output_buffer(a, b):
    """A reused array for ``fn(a, b)``'s result, or None where NumPy should allocate it."""
    if a.dtype != b.dtype or (a.nbytes < buffers.POOLED_FROM and b.nbytes < buffers.POOLED_FROM):
        return None
    big, small = (a, b) if a.ndim >= b.ndim else (b, a)
    shape = big.shape
    if shape == small.shape or shape[big.ndim - small.ndim:] == small.shape or \
            _stretches_to(small.shape, shape):   # e.g. a bias or a mask over the last axes
        return buffers.empty(shape, big.dtype)
    if _stretches_to(shape, small.shape):
        return buffers.empty(small.shape, small.dtype)
    return None


def _stretches_to(small, big):
    """``small`` broadcasts to ``big`` without changing it."""
    return len(small) <= len(big) and all(
        s == 1 or s == n for s, n in zip(small[::-1], big[::-1]))
