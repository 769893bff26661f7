"""Sums and maxima over the axes a training step reduces most, written for speed.

NumPy reduces a short axis with one small inner loop per output value, so the cost is
per row, not per number: on one thread, summing the 48 features of each of 512 rows
takes ~14 us and the maximum over the 32-long rows of a (16, 4, 32, 32) attention
matrix ~160 us, while ``np.maximum`` of that whole array takes ~4 us. A small GPT
does such reductions dozens of times a step (softmax, layer norm, bias gradients).
The same arithmetic, handed to loops over long stretches of memory:

* the sum over the last axis is a matrix-vector product with a vector of ones,
  ``rows @ 1`` (BLAS, ~3 us above);
* the sum over the leading axes is ``1 @ rows`` on the array seen as a matrix;
* the maximum over a short last axis (up to 64) moves that axis to the front first
  (one copy), then compares whole slices elementwise (~60 us above).

Sums equal NumPy's up to rounding (BLAS adds in another order, as torch's kernels
do); maxima are exact. Other dtypes (integers, bool) and empty arrays use NumPy's own
reductions.
"""
import math

import numpy as np

_FLOATS = (np.float32, np.float64)
SHORT_ROW = 64   # longer rows: NumPy's own max is faster than the copy max_last makes


_ONES = {}


def ones(length, dtype):
    """A read-only vector of ``length`` ones, made once per length and dtype (the sums above
    run dozens of times a step, with the same few lengths)."""
    if length > 1 << 16:
        return np.ones(length, dtype=dtype)
    key = (length, dtype)
    vector = _ONES.get(key)
    if vector is None:
        if len(_ONES) > 256:   # many different lengths: keep only the recent ones
            _ONES.clear()
        vector = _ONES[key] = np.ones(length, dtype=dtype)
        vector.flags.writeable = False
    return vector


def _is_fast(a):
    return a.dtype in _FLOATS and a.size > 0 and a.ndim > 0


def sum_last(a, keepdims=True):
    """``a.sum(axis=-1, keepdims=keepdims)``."""
    if not _is_fast(a):
        return a.sum(axis=-1, keepdims=keepdims)
    length = a.shape[-1]
    sums = (a.reshape(-1, length) @ ones(length, a.dtype)).reshape(a.shape[:-1])
    return sums[..., None] if keepdims else sums


def mean_last(a, keepdims=True):
    """``a.mean(axis=-1, keepdims=keepdims)``."""
    if not _is_fast(a):
        return a.mean(axis=-1, keepdims=keepdims)
    sums = sum_last(a, keepdims)
    sums *= 1.0 / a.shape[-1]
    return sums


def sum_leading(a, count):
    """``a.sum(axis=(0, ..., count - 1))``: the trailing shape is kept."""
    if count == 0:
        return a
    if not _is_fast(a) or count >= a.ndim:
        return a.sum(axis=tuple(range(count)))
    kept = a.shape[count:]
    rows = a.reshape(-1, math.prod(kept))
    return (ones(rows.shape[0], a.dtype) @ rows).reshape(kept)


def max_last(a, keepdims=True):
    """``a.max(axis=-1, keepdims=keepdims)`` (nan propagates, as in NumPy)."""
    if not _is_fast(a) or a.ndim == 1 or not 1 < a.shape[-1] <= SHORT_ROW:
        return a.max(axis=-1, keepdims=keepdims)
    front = np.ascontiguousarray(a.transpose((a.ndim - 1,) + tuple(range(a.ndim - 1))))
    maxima = front.max(axis=0)
    return maxima[..., None] if keepdims else maxima
