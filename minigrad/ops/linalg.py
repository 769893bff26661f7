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
        # C = A B  =>  dA = dC B^T,  dB = A^T dC  (batch axes summed where they broadcast)
        a, b = ctx.saved_tensors
        a2 = a[None, :] if a.ndim == 1 else a          # treat vectors as 1-row / 1-column matrices
        b2 = b[:, None] if b.ndim == 1 else b
        g2 = grad
        if a.ndim == 1:
            g2 = np.expand_dims(g2, -2)
        if b.ndim == 1:
            g2 = np.expand_dims(g2, -1)
        grad_a = g2 @ np.swapaxes(b2, -1, -2)
        grad_b = np.swapaxes(a2, -1, -2) @ g2
        if a.ndim == 1:
            grad_a = grad_a.reshape(grad_a.shape[:-2] + (a.shape[0],)) if grad_a.ndim > 2 else grad_a[0]
        if b.ndim == 1:
            grad_b = grad_b[..., 0]
        return unbroadcast(grad_a, a.shape), unbroadcast(grad_b, b.shape)
