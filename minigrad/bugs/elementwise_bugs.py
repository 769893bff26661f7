"""Bugs in elementwise arithmetic: broadcasting undone wrongly, signs and factors lost."""
import numpy as np

from ..ops.registry import unbroadcast
from .base import define, leaf, size


def _broadcast_example(op):
    def example(rng):
        n, d = size(rng, 3, 6), size(rng, 2, 5)
        x, p = leaf(rng, (n, d)), leaf(rng, (d,))   # p is broadcast over the n rows, like a bias
        return {"x": x, "p": p}, lambda: op(x, p)
    return example


def _stretched_axes(grad, shape):
    """Leading axes broadcasting added, and size-1 axes it stretched."""
    extra = grad.ndim - len(shape)
    leading = tuple(range(extra))
    stretched = tuple(extra + i for i, s in enumerate(shape) if s == 1 and grad.shape[extra + i] != 1)
    return leading, stretched


@define(
    name="add_bias_grad_averaged",
    op="add",
    family="elementwise",
    summary="broadcasting is undone with a mean instead of a sum, so a bias gets the average "
            "gradient of the batch",
    symptom="""Biases barely move: they learn batch-size times slower than the weights, as if
        they had their own tiny learning rate. Loss still falls, just slower than the reference;
        with batch size 1 everything looks perfect.""",
    lesson="""
        In x + b with x of shape (N, D) and b of shape (D,), NumPy uses the same b[j] in
        all N rows. Each use contributes its own gradient, and the chain rule ADDS them:
            dL/db[j] = sum over rows i of G[i, j]
        (minigrad's unbroadcast sums over every axis broadcasting added or stretched).

        The bug averages over those axes instead ("the gradient of the batch is its mean"),
        which divides the bias gradient by N. Averaging belongs in the loss (a mean over the
        batch), and only there; doing it again here scales the bias gradient a second time.

        Why nothing crashes: the mean has exactly the shape of the sum.""",
    example=_broadcast_example(lambda x, p: x + p),
)
def add_bias_grad_averaged(ctx, grad):
    def undo_by_mean(g, shape):
        leading, stretched = _stretched_axes(g, shape)
        g = g.mean(axis=leading) if leading else g
        stretched = tuple(axis - len(leading) for axis in stretched)
        return (g.mean(axis=stretched, keepdims=True) if stretched else g).reshape(shape)
    return undo_by_mean(grad, ctx.shapes[0]), undo_by_mean(grad, ctx.shapes[1])


@define(
    name="mul_broadcast_takes_first_row",
    op="mul",
    family="elementwise",
    summary="the gradient of a broadcast factor is taken from the first copy (grad[0]) instead "
            "of summed over all copies",
    symptom="""A per-feature scale (a gain, gamma, a gate) learns from the first sample of every
        batch only: its updates are much smaller and noisier than they should be, and it
        barely improves on its initial value. Batch size 1 hides it completely.""",
    lesson="""
        In y = x * s with x of shape (N, D) and s of shape (D,), s[j] multiplies all N rows:
            dL/ds[j] = sum over i of G[i, j] * x[i, j]
        Every place broadcasting reused s must send its gradient back and they add up.

        The bug reasons "s has shape (D,), so I need one row of the gradient" and keeps
        row 0 (grad[0]), throwing away the other N-1 contributions.

        Why nothing crashes: one row has exactly s's shape. With batch size 1 it is even
        correct, so a test on a single example passes.""",
    example=_broadcast_example(lambda x, p: x * p),
)
def mul_broadcast_takes_first_row(ctx, grad):
    a, b = ctx.saved_tensors

    def undo_by_first(g, shape):
        leading, stretched = _stretched_axes(g, shape)
        index = tuple(0 if axis in leading else slice(0, 1) if axis in stretched else slice(None)
                      for axis in range(g.ndim))
        return g[index].reshape(shape)
    return undo_by_first(grad * b, a.shape), undo_by_first(grad * a, b.shape)


@define(
    name="sub_forgets_minus",
    op="sub",
    family="elementwise",
    summary="d(a - b)/db is taken as +1 instead of -1",
    symptom="""Whatever is subtracted moves the wrong way: a learned offset, threshold or
        centre drifts away from its best value and the loss along it goes UP while the rest
        of the network compensates. Residual-style 'x - f(x)' blocks train badly.""",
    lesson="""
        For y = a - b:   dL/da = G,   dL/db = -G.
        The bug copies the backward of add and returns G for b as well, so every
        parameter reached through the right-hand side of a subtraction does gradient
        ASCENT on the loss.

        Why nothing crashes: -G and G have the same shape; only the sign is lost.
        Finite differences on b show the gradient with the opposite sign.""",
    example=_broadcast_example(lambda x, p: x - p),
)
def sub_forgets_minus(ctx, grad):
    return unbroadcast(grad, ctx.shapes[0]), unbroadcast(grad, ctx.shapes[1])


def _div_example(rng):
    n, d = size(rng, 2, 5), size(rng, 2, 4)
    a, b = leaf(rng, (n, d)), leaf(rng, (n, d), low=0.5, high=2.0)
    return {"a": a, "b": b}, lambda: a / b


@define(
    name="div_denominator_sign",
    op="div",
    family="elementwise",
    summary="d(a/b)/db is written as +a/b^2, losing the minus sign",
    symptom="""Anything that divides - a learned temperature, a normaliser, a scale in the
        denominator - is pushed the wrong way: the loss rises along it, and it can run off
        towards zero or infinity while the numerator path still trains.""",
    lesson="""
        For y = a / b:   dL/da = G / b,   dL/db = -G * a / b^2   (the derivative of 1/b is
        -1/b^2). The bug writes G * a / b^2: the minus sign of the quotient rule is
        dropped, so denominators do gradient ascent.

        Why nothing crashes: the sign does not change any shape, and the numerator's
        gradient is still right, so the network partly compensates.""",
    example=_div_example,
)
def div_denominator_sign(ctx, grad):
    a, b = ctx.saved_tensors
    return unbroadcast(grad / b, a.shape), unbroadcast(grad * a / (b * b), b.shape)


def _pow_example(rng):
    x = leaf(rng, (size(rng, 2, 5), size(rng, 2, 4)), low=0.5, high=2.0)
    exponent = float(rng.choice([2.0, 3.0]))
    return {"x": x}, lambda: x ** exponent


@define(
    name="pow_exponent_not_lowered",
    op="pow",
    family="elementwise",
    summary="d(a^n)/da is written as n a^n instead of n a^(n-1)",
    symptom="""Gradients through powers are too large where |a| > 1 and too small where
        |a| < 1 (by a factor a): an L2 penalty or a squared error trains with a distorted,
        position-dependent step size, sometimes diverging on large values.""",
    lesson="""
        Power rule: d(a^n)/da = n * a^(n-1). For a^2 that is 2a, for a^3 it is 3a^2.
        The bug keeps the exponent (n * a^n): the "bring the exponent down" step was done,
        the "lower the exponent by one" step forgotten. The result is off by a factor a
        per element - right at a = 1, wrong everywhere else, and with the wrong sign
        wherever a is negative.

        Why nothing crashes: a^n has a's shape. A test at a = 1 (a common "simple" test
        value) even passes.""",
    example=_pow_example,
)
def pow_exponent_not_lowered(ctx, grad):
    a, b, out = ctx.saved_tensors
    grad_a = unbroadcast(grad * b * np.power(a, b), a.shape) if ctx.needs_input_grad[0] else None
    grad_b = None
    if ctx.needs_input_grad[1]:
        grad_b = unbroadcast(grad * out * np.log(np.where(a > 0, a, 1)), b.shape)
    return grad_a, grad_b


def _positive_example(op):
    def example(rng):
        x = leaf(rng, (size(rng, 2, 5), size(rng, 2, 4)), low=0.2, high=3.0)
        return {"x": x}, lambda: op(x)
    return example


@define(
    name="log_derivative_of_log1p",
    op="log",
    family="elementwise",
    summary="d(ln a)/da is written as 1/(1 + a), the derivative of log1p",
    symptom="""Log-likelihood and cross-entropy losses built from log() train too slowly on
        the examples that matter most (small probabilities get a gradient near 1 instead of
        1/p), so the model stays under-confident and accuracy plateaus early.""",
    lesson="""
        d(ln a)/da = 1/a. The bug returns G / (1 + a), the derivative of ln(1 + a) - a
        mix-up with log1p, which appears right next to log in softplus and in stable
        cross-entropy code. For small a (probabilities near 0) the right gradient 1/a is
        huge and the bug's is about 1: exactly the examples that should push hardest
        push least.

        Why nothing crashes: both are elementwise, same shape, and both are finite and
        positive, so the loss still goes down, just much less than it should.""",
    example=_positive_example(lambda x: x.log()),
)
def log_derivative_of_log1p(ctx, grad):
    (a,) = ctx.saved_tensors
    return (grad / (1 + a),)


@define(
    name="sqrt_missing_half",
    op="sqrt",
    family="elementwise",
    summary="d(sqrt a)/da is written as 1/sqrt(a) instead of 1/(2 sqrt(a))",
    symptom="""Every path through a square root (norms, standard deviations, RMS scaling)
        gets twice the gradient it should: a quiet doubling of the learning rate on those
        paths that can tip a stable run into oscillation.""",
    lesson="""
        sqrt(a) = a^(1/2), so d sqrt(a)/da = (1/2) a^(-1/2) = 1 / (2 sqrt(a)). The bug
        forgets the 1/2 from the power rule and returns G / sqrt(a): a factor of 2 too big
        everywhere. A uniform factor only rescales the step, so the loss still falls,
        which is why factor-of-2 bugs survive for a long time.

        Why nothing crashes: a constant factor changes no shape and no sign. Only a
        comparison with finite differences (relative error exactly 1) shows it.""",
    example=_positive_example(lambda x: x.sqrt()),
)
def sqrt_missing_half(ctx, grad):
    (out,) = ctx.saved_tensors
    return (grad / out,)
