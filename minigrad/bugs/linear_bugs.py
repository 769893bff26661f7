"""Bugs in the backward of matrix multiplication (the heart of every Linear layer)."""
import numpy as np

from ..ops.registry import unbroadcast
from .base import define, leaf, size


def _matmul_example(rng):
    # a non-square weight: on a square one the transposition bug is only a
    # transpose, on a symmetric square one it would be invisible
    n, k = size(rng, 3, 6), size(rng, 2, 5)
    m = k + size(rng, 1, 3)
    x, w = leaf(rng, (n, k)), leaf(rng, (k, m))
    return {"x": x, "w": w}, lambda: x @ w


@define(
    name="matmul_weight_grad_transposed",
    op="matmul",
    family="linear algebra",
    summary="the weight gradient of A @ B is computed as G^T A and reshaped into B's shape",
    symptom="""Loss falls more slowly than it should, or wanders; layers whose weight matrix is
        square look almost fine (their gradient is merely transposed), non-square ones learn
        noise. No error, no NaN.""",
    lesson="""
        For C = A @ B with upstream gradient G = dL/dC:
            dL/dA = G @ B^T        dL/dB = A^T @ G
        (shapes: A is n x k, B is k x m, G is n x m; A^T @ G is k x m, like B).

        The bug writes dL/dB = G^T @ A, which is m x k. The engine rejected that shape,
        so the learner "fixed" it with .reshape(B.shape). Reshaping is not transposing:
        the numbers are read out in the wrong order. On a square B it is exactly the
        transpose of the right answer; on a symmetric A^T G it is even right, which is
        why a test with square or symmetric matrices never caught it.

        Why nothing crashes: reshape always succeeds when the sizes match, and the engine
        only checks shapes. Compare with finite differences on a NON-square layer.""",
    example=_matmul_example,
)
def matmul_weight_grad_transposed(ctx, grad):
    a, b = ctx.saved_tensors
    a2 = a[None, :] if a.ndim == 1 else a
    b2 = b[:, None] if b.ndim == 1 else b
    g2 = grad
    if a.ndim == 1:
        g2 = np.expand_dims(g2, -2)
    if b.ndim == 1:
        g2 = np.expand_dims(g2, -1)
    grad_a = g2 @ np.swapaxes(b2, -1, -2)
    if a.ndim == 1:
        grad_a = grad_a[..., 0, :]
    wrong_b = np.swapaxes(g2, -1, -2) @ a2                      # G^T A: m x k, not k x m
    wrong_b = unbroadcast(wrong_b, b2.shape[:-2] + wrong_b.shape[-2:])
    return unbroadcast(grad_a, a.shape), wrong_b.reshape(b.shape)  # "fixed" with reshape
