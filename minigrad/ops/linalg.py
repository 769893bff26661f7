"""Matrix multiplication, batched like ``np.matmul``."""
import math

import numpy as np

from ..autograd import Function
from . import buffers
from .registry import register, unbroadcast


def _as_rows(array):
    """The array as one matrix: every leading axis becomes more rows (sizes 0 included)."""
    return array.reshape(math.prod(array.shape[:-1]), array.shape[-1])


def product(a, b):
    """``a @ b`` of two arrays of 2 or more axes, written into a reused buffer (buffers.py)."""
    if a.dtype != b.dtype:
        return a @ b
    shape = a.shape[:-1] + b.shape[-1:]
    if a.ndim != b.ndim or a.shape[:-2] != b.shape[:-2]:
        shape = np.broadcast_shapes(a.shape[:-2], b.shape[:-2]) + shape[-2:]
    return np.matmul(a, b, out=buffers.empty(shape, a.dtype))


@register("matmul")
class MatMul(Function):
    @staticmethod
    def forward(ctx, a, b):
        if a.ndim == 0 or b.ndim == 0:
            raise ValueError("matmul needs tensors with at least one dimension, got a scalar")
        if a.shape[-1] != b.shape[-2 if b.ndim > 1 else 0]:
            raise ValueError(f"matmul shape mismatch: {a.shape} @ {b.shape}; the last axis of the "
                             f"left ({a.shape[-1]}) must equal the "
                             f"{'second-to-last' if b.ndim > 1 else 'only'} axis of the right")
        if a.dtype != b.dtype and not (a.dtype.kind == b.dtype.kind == "f"):
            # two float precisions are promoted as NumPy does (a float64 array fed to a float32
            # layer computes in float64; torch refuses, but learners feed NumPy arrays);
            # an integer operand is refused, as in torch
            raise TypeError(f"matmul: both operands must be floats, got {a.dtype} @ "
                            f"{b.dtype}; convert the integer operand first, e.g. "
                            f"x.to('float32')")
        ctx.save_for_backward(a, b)
        if a.ndim > 2 and b.ndim == 2 and a.flags.c_contiguous:
            # a stack of rows times one matrix (a Linear layer on (batch, time, features)):
            # one product of all the rows, not one small product per batch entry
            return product(_as_rows(a), b).reshape(a.shape[:-1] + b.shape[-1:])
        if a.ndim > 1 and b.ndim > 1:
            return product(a, b)
        return a @ b

    @staticmethod
    def backward(ctx, grad):
        # C = A B  =>  dA = dC B^T,  dB = A^T dC  (batch axes summed where they broadcast).
        # A vector is treated as a 1-row (left) or 1-column (right) matrix; the output
        # gradient gets those axes back first, so 1-D @ 1-D (a 0-d output) works too.
        a, b = ctx.saved_tensors
        stacked_rows = a.ndim > 2 and b.ndim == 2 and a.flags.c_contiguous
        if stacked_rows:  # as in forward: the batch axes are more rows of one matrix
            a, grad = _as_rows(a), _as_rows(grad)
        if a.ndim == 2 and b.ndim == 2:  # plain matrices (every Linear layer): the rule as is
            # a first layer's input needs no gradient: don't compute one for it
            needs_a, needs_b = ctx.needs_input_grad
            grad_b = None
            if needs_b:  # in b's memory layout: Linear's b is weight.T, whose .grad must be
                # C-ordered again after permute's backward, without a slow transposing copy
                grad_b = product(grad.T, a).T if b.flags.f_contiguous else product(a.T, grad)
            grad_a = product(grad, b.T) if needs_a else None
            if grad_a is not None and stacked_rows:
                grad_a = grad_a.reshape(ctx.saved_tensors[0].shape)
            return grad_a, grad_b
        a2 = a[None, :] if a.ndim == 1 else a
        b2 = b[:, None] if b.ndim == 1 else b
        batch = a2.shape[:-2] if a2.shape[:-2] == b2.shape[:-2] else \
            np.broadcast_shapes(a2.shape[:-2], b2.shape[:-2])
        g2 = grad.reshape(batch + (a2.shape[-2], b2.shape[-1]))
        needs_a, needs_b = ctx.needs_input_grad
        grad_a = product(g2, b2.swapaxes(-1, -2)) if needs_a else None
        grad_b = product(a2.swapaxes(-1, -2), g2) if needs_b else None
        if a.ndim == 1 and needs_a:
            grad_a = grad_a[..., 0, :]
        if b.ndim == 1 and needs_b:
            grad_b = grad_b[..., :, 0]
        return (unbroadcast(grad_a, a.shape) if needs_a else None,
                unbroadcast(grad_b, b.shape) if needs_b else None)


def parse_einsum(spec, shapes):
    """``"ij,jk->ik"`` with ellipses written out as letters and the output made explicit.

    Returns (input subscripts, output subscripts). Implicit output (no ``->``): the
    letters that appear once, in alphabetical order, after the ellipsis axes, as NumPy.
    """
    if not isinstance(spec, str):
        raise TypeError(f"einsum: the first argument is the spec string such as 'ij,jk->ik', "
                        f"got {type(spec).__name__}; call mg.einsum(spec, *tensors)")
    spec = spec.replace(" ", "")
    inputs, arrow, output = spec.partition("->")
    terms = inputs.split(",")
    if len(terms) != len(shapes):
        raise ValueError(f"einsum: the spec {spec!r} names {len(terms)} operands, got {len(shapes)}")
    used = set(spec) - set(".,->")
    spare = [c for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz" if c not in used]
    widest = max([len(shape) - len(term.replace("...", "")) for term, shape in zip(terms, shapes)
                  if "..." in term] + [0])
    ellipsis = "".join(spare[:widest])
    expanded = []
    for term, shape in zip(terms, shapes):
        if "..." in term:
            count = len(shape) - len(term.replace("...", ""))
            term = term.replace("...", ellipsis[widest - count:] if count else "")
        if len(term) != len(shape):
            raise ValueError(f"einsum: subscripts {term!r} name {len(term)} axes, but the operand "
                             f"has shape {tuple(shape)}")
        expanded.append(term)
    _same_sizes(spec, expanded, shapes)
    if arrow:
        output = output.replace("...", ellipsis)
    else:
        letters = "".join(expanded)
        output = ellipsis + "".join(sorted(c for c in set(letters)
                                           if letters.count(c) == 1 and c not in ellipsis))
    return expanded, output


def _same_sizes(spec, terms, shapes):
    """Every letter names one size (1 broadcasts): a clash is named with its letter, not
    left to NumPy's "could not be broadcast together with remapped shapes"."""
    sizes = {}
    for term, shape in zip(terms, shapes):
        for letter, size in zip(term, shape):
            if size != 1 and sizes.setdefault(letter, size) != size:
                raise ValueError(f"einsum: in {spec!r} the letter {letter!r} stands for sizes "
                                 f"{sizes[letter]} and {size} (operand shapes "
                                 f"{[tuple(s) for s in shapes]}); a letter shared by two "
                                 "operands needs the same size in both")


@register("einsum")
class Einsum(Function):
    """Einstein summation over any number of operands (``np.einsum``).

    The gradient of operand k is itself an einsum: the output's gradient times
    every other operand, summed over everything operand k does not carry.
    Two wrinkles: a letter only operand k carries (summed away inside it) means
    the gradient is the same along that axis; a repeated letter (``"ii->i"``,
    a diagonal) means the gradient lands on the diagonal only.
    """

    @staticmethod
    def forward(ctx, *arrays, spec=None):
        ctx.terms, ctx.output = parse_einsum(spec, [a.shape for a in arrays])
        ctx.save_for_backward(*arrays)
        formula = ",".join(ctx.terms) + "->" + ctx.output
        return np.asarray(np.einsum(formula, *arrays, optimize=len(arrays) > 2))

    @staticmethod
    def backward(ctx, grad):
        arrays, grads = ctx.saved_tensors, []
        for k, (term, a) in enumerate(zip(ctx.terms, arrays)):
            if not ctx.needs_input_grad[k]:
                grads.append(None)
                continue
            others = [(t, x) for i, (t, x) in enumerate(zip(ctx.terms, arrays)) if i != k]
            elsewhere = set(ctx.output).union(*[set(t) for t, _ in others])
            unique = "".join(dict.fromkeys(term))
            reached = "".join(c for c in unique if c in elsewhere)
            formula = ",".join([ctx.output] + [t for t, _ in others]) + "->" + reached
            partial = np.einsum(formula, grad, *[x for _, x in others],
                                optimize=len(others) > 1)
            size = {c: n for c, n in zip(term, a.shape)}
            stretched = tuple(i for i, c in enumerate(reached)       # size 1 here, broadcast
                              if size[c] == 1 and partial.shape[i] != 1)  # against the others
            if stretched:
                partial = partial.sum(axis=stretched, keepdims=True)
            # a letter summed inside operand k alone: the same gradient along that axis
            partial = np.expand_dims(partial, [i for i, c in enumerate(unique) if c not in elsewhere])
            partial = np.broadcast_to(partial, [size[c] for c in unique])
            if unique == term:
                grads.append(np.ascontiguousarray(partial))
            else:  # repeated letters: write onto the diagonal view of a zero array
                full = np.zeros(a.shape, dtype=grad.dtype)
                np.einsum(f"{term}->{unique}", full)[...] = partial
                grads.append(full)
        return tuple(grads)
