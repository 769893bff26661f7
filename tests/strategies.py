"""Hypothesis strategies shared by the op tests: shapes, axes, image geometries.

Values inside arrays come from a NumPy generator seeded by Hypothesis (``seeds``),
not from Hypothesis itself: gradient checks want smooth random floats, and
shrinking happens on shapes and options, where the interesting failures live.
"""
import numpy as np
from hypothesis import assume, strategies as st
from hypothesis.extra import numpy as hnp

MAX_SIDE = 4


def seeds():
    return st.integers(0, 2 ** 32 - 1)


def shapes(min_dims=0, max_dims=3, min_side=1, max_side=MAX_SIDE):
    return hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=min_side,
                            max_side=max_side)


def broadcast_shapes(count=2, min_dims=0, max_dims=3, max_side=MAX_SIDE):
    """``count`` shapes that broadcast together (size-1 axes and missing leading axes)."""
    return hnp.mutually_broadcastable_shapes(num_shapes=count, min_dims=min_dims,
                                             max_dims=max_dims, min_side=1,
                                             max_side=max_side).map(lambda s: s.input_shapes)


def matmul_shapes():
    """Shape pairs for ``a @ b``: vectors, matrices and broadcast batches of matrices."""
    return hnp.mutually_broadcastable_shapes(signature=np.matmul.signature, max_dims=2,
                                             min_side=1, max_side=MAX_SIDE).map(
        lambda s: s.input_shapes)


@st.composite
def reduction_axes(draw, ndim):
    """None (all axes), one axis (possibly negative) or a tuple of distinct axes."""
    if ndim == 0:
        return None
    kind = draw(st.sampled_from(["none", "int", "tuple"]))
    if kind == "none":
        return None
    if kind == "int":
        return draw(st.integers(-ndim, ndim - 1))
    return tuple(draw(st.lists(st.integers(0, ndim - 1), min_size=1, max_size=ndim, unique=True)))


@st.composite
def image_geometry(draw, max_kernel=3, allow_dilation=True, pool=False):
    """(N, C, H, W), kernel, stride, padding, dilation with at least one output pixel.

    ``pool=True`` keeps padding at most half the kernel size, as torch's pooling requires.
    """
    kh, kw = draw(st.integers(1, max_kernel)), draw(st.integers(1, max_kernel))
    dilation = (draw(st.integers(1, 2)), draw(st.integers(1, 2))) if allow_dilation else (1, 1)
    stride = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    reach = (dilation[0] * (kh - 1) + 1, dilation[1] * (kw - 1) + 1)
    if pool:
        padding = (draw(st.integers(0, kh // 2)), draw(st.integers(0, kw // 2)))
    else:
        padding = (draw(st.integers(0, 2)), draw(st.integers(0, 2)))
    # the image must be at least as large as the kernel's reach minus the padding
    h = draw(st.integers(max(1, reach[0] - 2 * padding[0]), reach[0] + 4))
    w = draw(st.integers(max(1, reach[1] - 2 * padding[1]), reach[1] + 4))
    n, c = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    if pool:  # every window must cover a real pixel (else max pooling gives -inf; torch crashes)
        for size, k, s, p, d in zip((h, w), (kh, kw), stride, padding, dilation):
            count = (size + 2 * p - d * (k - 1) - 1) // s + 1
            reach = [any(p <= o * s + i * d < p + size for i in range(k)) for o in range(count)]
            assume(all(reach))
    return {"shape": (n, c, h, w), "kernel": (kh, kw), "stride": stride, "padding": padding,
            "dilation": dilation}


def normal(rng, shape, scale=1.0):
    return rng.normal(0.0, scale, size=shape)


def positive(rng, shape, low=0.5, high=2.0):
    return rng.uniform(low, high, size=shape)


def away_from_zero(rng, shape, low=0.5, high=2.0):
    """Values with |v| in [low, high]: safe divisors, and far from the kinks at 0."""
    return rng.uniform(low, high, size=shape) * rng.choice([-1.0, 1.0], size=shape)
