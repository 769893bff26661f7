"""Matrix multiplication, batched like ``np.matmul``."""
import numpy as np

from ..autograd import Function
from .registry import register, unbroadcast


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
        ctx.save_for_backward(a, b)
        return a @ b

    @staticmethod
    def backward(ctx, grad):
        # C = A B  =>  dA = dC B^T,  dB = A^T dC  (batch axes summed where they broadcast).
        # A vector is treated as a 1-row (left) or 1-column (right) matrix; the output
        # gradient gets those axes back first, so 1-D @ 1-D (a 0-d output) works too.
        a, b = ctx.saved_tensors
        if a.ndim == 2 and b.ndim == 2:  # plain matrices (every Linear layer): the rule as is
            # a first layer's input needs no gradient: don't compute one for it
            needs_a, needs_b = ctx.needs_input_grad
            return (grad @ b.T if needs_a else None), (a.T @ grad if needs_b else None)
        a2 = a[None, :] if a.ndim == 1 else a
        b2 = b[:, None] if b.ndim == 1 else b
        batch = np.broadcast_shapes(a2.shape[:-2], b2.shape[:-2])
        g2 = grad.reshape(batch + (a2.shape[-2], b2.shape[-1]))
        grad_a = g2 @ np.swapaxes(b2, -1, -2)
        grad_b = np.swapaxes(a2, -1, -2) @ g2
        if a.ndim == 1:
            grad_a = grad_a[..., 0, :]
        if b.ndim == 1:
            grad_b = grad_b[..., :, 0]
        return unbroadcast(grad_a, a.shape), unbroadcast(grad_b, b.shape)
