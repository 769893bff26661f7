"""The error function, written out in NumPy (minigrad may not use SciPy), and GELU on it.

GELU's exact form is ``x * Phi(x)`` with ``Phi(x) = erfc(-x / sqrt(2)) / 2``, so
minigrad needs erf/erfc on whole arrays. Two classical expansions cover the line:

* ``|x| < 2``: the series ``erf(x) = 2/sqrt(pi) e^(-x^2) sum_n x (2x^2)^n / (1*3*...*(2n+1))``.
  Every term is positive, so nothing cancels and 40 terms give full float64 accuracy.
* ``|x| >= 2``: the continued fraction
  ``erfc(x) = e^(-x^2)/sqrt(pi) * 1/(x + (1/2)/(x + (2/2)/(x + (3/2)/(x + ...))))``,
  evaluated from a fixed depth inwards. It converges fast for large x and stays
  accurate in the tail, where ``1 - erf(x)`` would lose every digit.

Both are a fixed number of array operations, so they run vectorised. Measured
against ``math.erf``/``math.erfc`` (tests/test_ops_wrappers.py): absolute error of
erf below 1e-15; relative error of erfc below 1e-15 for x >= 2 and for x < 1, and
below 2e-13 just under x = 2, where it is computed as ``1 - erf(x)``.
"""
import numpy as np

from ..autograd import Function
from .registry import register

SERIES_TERMS = 40
FRACTION_DEPTH = 60
SWITCH = 2.0  # below: series for erf; at or above: continued fraction for erfc
_TWO_OVER_SQRT_PI = 2.0 / np.sqrt(np.pi)
_BEYOND_UNDERFLOW = 40.0  # erfc(40) ~ 1e-697 is 0.0 in float64; capping keeps inf finite


def _exp_minus_square(x):
    """``exp(-x^2)`` without the rounding error of ``x*x`` blowing up for large x.

    ``x^2`` rounded loses ~x^2 * 1e-16 in absolute terms, a relative error of
    1e-13 in ``exp(-x^2)`` at x = 25. Splitting x into a short head (whose square
    is exact) and a tail keeps the result accurate to a few ulps.
    """
    head = np.round(x * 4096.0) / 4096.0
    return np.exp(-head * head) * np.exp(-(x - head) * (x + head))


def _erf_series(x):
    step = 2.0 * x * x
    term = x.copy()
    total = x.copy()
    for n in range(1, SERIES_TERMS):
        term = term * step / (2 * n + 1)
        total = total + term
    return _TWO_OVER_SQRT_PI * _exp_minus_square(x) * total


def _erfc_fraction(x):
    """erfc for x >= SWITCH (positive x only)."""
    tail = np.zeros_like(x)
    for k in range(FRACTION_DEPTH, 0, -1):
        tail = (k / 2.0) / (x + tail)
    return _exp_minus_square(x) / np.sqrt(np.pi) / (x + tail)


def erfc(x):
    """Complementary error function ``1 - erf(x)`` of a float array, in float64."""
    x = np.asarray(x, dtype=np.float64)
    out = np.empty_like(x)
    magnitude = np.abs(x)
    near = magnitude < SWITCH
    out[near] = 1.0 - _erf_series(x[near])
    far = ~near & ~np.isnan(x)
    tail = _erfc_fraction(np.minimum(magnitude[far], _BEYOND_UNDERFLOW))
    out[far] = np.where(x[far] > 0, tail, 2.0 - tail)  # erfc(-x) = 2 - erfc(x)
    out[np.isnan(x)] = np.nan
    return out


def erf(x):
    """Error function of a float array, in float64 (accurate to ~1e-15 absolute)."""
    x = np.asarray(x, dtype=np.float64)
    out = np.empty_like(x)
    magnitude = np.abs(x)
    near = magnitude < SWITCH
    out[near] = _erf_series(x[near])
    far = ~near & ~np.isnan(x)
    out[far] = np.sign(x[far]) * (1.0 - _erfc_fraction(np.minimum(magnitude[far], _BEYOND_UNDERFLOW)))
    out[np.isnan(x)] = np.nan
    return out


def normal_cdf(x):
    """Phi(x), the standard normal CDF, accurate also deep in the left tail."""
    return 0.5 * erfc(-np.asarray(x, dtype=np.float64) / np.sqrt(2.0))


def normal_pdf(x):
    x = np.asarray(x, dtype=np.float64)
    return np.exp(-0.5 * x * x) / np.sqrt(2.0 * np.pi)


@register("erf")
class Erf(Function):
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return erf(a).astype(a.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):  # d erf(a)/da = 2/sqrt(pi) e^(-a^2)
        (a,) = ctx.saved_tensors
        return ((grad * _TWO_OVER_SQRT_PI * np.exp(-np.square(a))).astype(a.dtype, copy=False),)


# --- GELU ---------------------------------------------------------------------
# ``x * Phi(x)``, as torch.nn.GELU. approximate="none" (torch's default) uses the
# exact normal CDF above; approximate="tanh" the tanh formula of Hendrycks & Gimpel.

_SQRT_2_OVER_PI = np.sqrt(2.0 / np.pi)
_CUBIC = 0.044715


@register("gelu")
class GELU(Function):
    @staticmethod
    def forward(ctx, a, approximate="none"):
        if approximate not in ("none", "tanh"):
            raise ValueError(f"gelu: approximate must be 'none' or 'tanh', got {approximate!r}")
        x = a.astype(np.float64)  # erf runs in float64; the result returns to a's dtype
        ctx.approximate = approximate
        ctx.save_for_backward(a)
        if approximate == "tanh":
            out = 0.5 * x * (1.0 + np.tanh(_SQRT_2_OVER_PI * (x + _CUBIC * x ** 3)))
        else:
            out = x * normal_cdf(x)
        return out.astype(a.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        x = a.astype(np.float64)
        if ctx.approximate == "tanh":
            # d/dx [x/2 (1 + tanh u)] = (1 + tanh u)/2 + x/2 (1 - tanh^2 u) u',  u = c (x + k x^3)
            t = np.tanh(_SQRT_2_OVER_PI * (x + _CUBIC * x ** 3))
            local = 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * _SQRT_2_OVER_PI * (1.0 + 3 * _CUBIC * x * x)
        else:
            local = normal_cdf(x) + x * normal_pdf(x)  # d/dx [x Phi(x)] = Phi(x) + x phi(x)
        return ((grad * local).astype(a.dtype, copy=False),)
