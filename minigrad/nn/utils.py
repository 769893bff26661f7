"""Gradient utilities: clipping by total norm or by value."""
import math

import numpy as np

from ..tensor import Tensor


def _with_grads(parameters):
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    return [p for p in parameters if p.grad is not None]


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False):
    """Scale all gradients together so that their joint norm is at most ``max_norm``.

    The joint norm treats every gradient as one long vector: the norm of the
    per-parameter norms. Scaling them all by the same factor keeps the update's
    direction and only shortens it. Returns the norm before clipping (a NumPy scalar,
    so both ``float(n)`` and ``n.item()`` work).
    """
    params = _with_grads(parameters)
    norm_type = float(norm_type)
    if not params:
        return np.float64(0.0)
    if math.isinf(norm_type):
        norms = [np.abs(p.grad).max() if p.grad.size else 0.0 for p in params]
        total = np.max(np.asarray(norms))
    else:
        norms = [np.linalg.norm(p.grad.ravel(), ord=norm_type) for p in params]
        total = np.linalg.norm(np.asarray(norms), ord=norm_type)
    total = np.asarray(total, dtype=params[0].grad.dtype)[()]
    if error_if_nonfinite and not np.isfinite(total):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` "
                           "is non-finite, so it cannot be clipped. Look for NaN/Inf in the loss "
                           "first, or pass error_if_nonfinite=False.")
    coef = min(float(max_norm) / (float(total) + 1e-6), 1.0)
    for p in params:
        p.grad = (p.grad * np.asarray(coef, dtype=p.grad.dtype)).astype(p.grad.dtype, copy=False)
    return total


def clip_grad_value_(parameters, clip_value):
    """Clamp every gradient element into [-clip_value, clip_value]."""
    for p in _with_grads(parameters):
        np.clip(p.grad, -clip_value, clip_value, out=p.grad)


def parameters_to_vector(parameters):
    return np.concatenate([p.data.ravel() for p in parameters])


def vector_to_parameters(vector, parameters):
    offset = 0
    for p in parameters:
        p.data[...] = np.asarray(vector[offset:offset + p.data.size]).reshape(p.shape)
        offset += p.data.size
