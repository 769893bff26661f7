"""Bugs in reductions and indexing: how a gradient is spread back or gathered."""
import numpy as np

from ..ops.reduce import expand_reduced
from .base import define, leaf, size


def _reduce_example(op):
    def example(rng):
        x = leaf(rng, (size(rng, 2, 5), size(rng, 2, 5)))
        axis = int(rng.integers(0, 2))
        return {"x": x}, lambda: op(x, axis)
    return example


@define(
    name="mean_forgets_count",
    op="mean",
    family="reduction",
    summary="mean's backward spreads the gradient like sum's, without dividing by the count",
    symptom="""Losses averaged over a batch produce gradients batch-size times too large:
        the run behaves as if the learning rate were multiplied by the batch size - it
        oscillates or diverges, and a smaller learning rate 'fixes' it.""",
    lesson="""
        mean(a) = sum(a) / n, so every averaged element gets 1/n of the gradient:
            dL/da_i = G / n
        The bug copies sum's backward (every element gets the full G) and forgets the
        1/n. Every loss that is a mean over the batch now yields a gradient n times too
        large, so the effective learning rate depends on the batch size.

        Why nothing crashes: the spread gradient has the input's shape either way.""",
    example=_reduce_example(lambda x, axis: x.mean(axis=axis)),
)
def mean_forgets_count(ctx, grad):
    return (np.broadcast_to(expand_reduced(grad, ctx.axes, ctx.keepdims), ctx.shape).copy(),)


@define(
    name="max_backward_like_sum",
    op="max",
    family="reduction",
    summary="max's backward sends the gradient to every element, not only to the maximum",
    symptom="""Max-pooled or max-reduced features all move together: the network cannot
        learn which input was responsible, and learning is slow and blurred compared with
        the reference.""",
    lesson="""
        max(a) depends on its largest element only; nudging any other element does not
        change it (as long as there are no ties). So
            dL/da_i = G if a_i is the maximum, else 0
        (tied maxima share G). The bug copies sum's backward and gives every element G:
        all inputs are blamed for what only the winner did.

        Why nothing crashes: broadcasting G back to the input shape is exactly what the
        right answer does too - it just forgets the mask of winners.""",
    example=_reduce_example(lambda x, axis: x.max(axis=axis)),
)
def max_backward_like_sum(ctx, grad):
    a, out = ctx.saved_tensors
    return (np.broadcast_to(expand_reduced(grad, ctx.axes, ctx.keepdims), a.shape).copy(),)


def _getitem_example(rng):
    n, d = size(rng, 3, 6), size(rng, 2, 4)
    x = leaf(rng, (n, d))
    rows = rng.integers(0, n, size=n + 3)
    rows[:2] = rows[2]                          # make sure at least one row is picked 3 times
    return {"x": x}, lambda: x[rows]


@define(
    name="getitem_assign_not_accumulate",
    op="getitem",
    family="indexing",
    summary="indexing's backward writes the gradient with assignment (full[idx] = g), so a "
            "repeated index keeps only its last gradient",
    symptom="""Anything picked more than once in a batch (a frequent word, a row gathered
        twice, a sample drawn twice) learns as if it had appeared once: frequent items
        learn too slowly. With unique indices everything is perfect.""",
    lesson="""
        y = x[idx] copies x[idx[k]] into y[k]. If an index appears twice, that row of x
        was used twice and gets both gradients, added:
            dL/dx[r] = sum over k with idx[k] == r of G[k]
        (np.add.at does this: an unbuffered scatter-ADD). The bug writes full[idx] = G.
        NumPy's fancy assignment with repeated indices simply overwrites: the last write
        wins and the other gradients are lost.

        Why nothing crashes: full has x's shape. Tests with unique indices (a slice, a
        permutation) pass; only repeated indices show it.""",
    example=_getitem_example,
)
def getitem_assign_not_accumulate(ctx, grad):
    full = np.zeros(ctx.shape, dtype=grad.dtype)
    full[ctx.index] = grad                     # repeated indices: last write wins
    return (full,)
