"""The error function, written out in NumPy (minigrad may not use SciPy), and GELU on it.

GELU's exact form is ``x * Phi(x)`` with ``Phi(x) = erfc(-x / sqrt(2)) / 2``, so
minigrad needs erf/erfc on whole arrays, fast: GELU runs on every hidden unit of a
transformer. A power series or a continued fraction needs tens of array passes;
a ratio of two short polynomials fitted to the function (a rational Chebyshev
approximation) needs about ten. We use W. J. Cody's, from "Rational Chebyshev
approximations for the error function" (Math. Comp. 23, 1969), the ones C
libraries build on, accurate to float64 on three ranges of ``|x|``:

* ``|x| <= 0.46875``: ``erf(x) = x * P1(x^2) / Q1(x^2)``;
* ``0.46875 < |x| <= 4``: ``erfc(|x|) = e^(-x^2) * P2(|x|) / Q2(|x|)``;
* ``|x| > 4``: ``erfc(|x|) = e^(-x^2) / |x| * (1/sqrt(pi) - z * P3(z) / Q3(z))``, ``z = 1/x^2``.

Away from zero erfc is computed directly (``1 - erf`` would lose every digit in the
tail), and the other follows: ``erf = 1 - erfc``, ``erfc(-x) = 2 - erfc(x)``.
Measured against ``math.erf``/``math.erfc`` (tests/test_ops_wrappers.py): absolute
error of erf below 2e-15, relative error of erfc below 5e-15 for x >= 2.

A float32 array needs far less: erf(x) is 1.0 in float32 once |x| > 3.92, and one ratio
``x * P(x^2) / Q(x^2)`` (degree 5 over 5) on ``[-3.92, 3.92]`` is accurate to float32.
That is ~25 in-place float32 passes with no masks, against ~40 passes plus the range
masks and their copies above: ~1 ms instead of ~17 ms on 524k values (GELU in a GPT).
The coefficients are our own fit, re-derived by ``tools/fit_erf_float32.py``; error
over every float32 in [2^-40, 4.1]: at most 7 ulp, 0.7 ulp on average (float32's own
rounding in the two Horner sums, not the fit, which is within 2e-8).
"""
import math

import numpy as np

from ..autograd import Function
from . import buffers
from .registry import register

# Cody's coefficients, highest power first; every denominator's leading coefficient is 1.
_P1 = (1.85777706184603153e-1, 3.16112374387056560e0, 1.13864154151050156e2,
       3.77485237685302021e2, 3.20937758913846947e3)
_Q1 = (1.0, 2.36012909523441209e1, 2.44024637934444173e2, 1.28261652607737228e3,
       2.84423683343917062e3)
_P2 = (2.15311535474403846e-8, 5.64188496988670089e-1, 8.88314979438837594e0,
       6.61191906371416295e1, 2.98635138197400131e2, 8.81952221241769090e2,
       1.71204761263407058e3, 2.05107837782607147e3, 1.23033935479799725e3)
_Q2 = (1.0, 1.57449261107098347e1, 1.17693950891312499e2, 5.37181101862009858e2,
       1.62138957456669019e3, 3.29079923573345963e3, 4.36261909014324716e3,
       3.43936767414372164e3, 1.23033935480374942e3)
_P3 = (1.63153871373020978e-2, 3.05326634961232344e-1, 3.60344899949804439e-1,
       1.25781726111229246e-1, 1.60837851487422766e-2, 6.58749161529837803e-4)
_Q3 = (1.0, 2.56852019228982242e0, 1.87295284992346047e0, 5.27905102951428412e-1,
       6.05183413124413191e-2, 2.33520497626869185e-3)
NEAR_ZERO, FAR = 0.46875, 4.0   # the three ranges of |x|
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)   # Python floats: float32 arrays stay float32
_ONE_OVER_SQRT_PI = 1.0 / math.sqrt(math.pi)
_BEYOND_UNDERFLOW = 40.0  # erfc(40) ~ 1e-697 is 0.0 in float64; capping keeps inf finite


def _ratio(numerator, denominator, t):
    """``P(t) / Q(t)``, both polynomials by Horner's rule, in place (few temporaries)."""
    p = np.full_like(t, numerator[0])
    for c in numerator[1:]:
        p *= t
        p += c
    q = t + denominator[1]
    for c in denominator[2:]:
        q *= t
        q += c
    p /= q
    return p


def _exp_minus_square(x):
    """``exp(-x^2)`` without the rounding error of ``x*x`` blowing up for large x.

    ``x^2`` rounded loses ~x^2 * 1e-16 in absolute terms, a relative error of
    1e-13 in ``exp(-x^2)`` at x = 25. Splitting x into a head on a grid of 1/16
    (whose square is exact, in float32 too) and a tail keeps it to a few ulps.
    """
    head = np.round(x * 16.0) / 16.0
    return np.exp(-head * head) * np.exp(-(x - head) * (x + head))


def _erf_near_zero(x):
    """erf for |x| <= NEAR_ZERO."""
    return x * _ratio(_P1, _Q1, x * x)


def _erfc_away_from_zero(magnitude):
    """erfc for magnitude > NEAR_ZERO (no nan)."""
    y = np.minimum(magnitude, _BEYOND_UNDERFLOW)
    out = np.empty_like(y)
    middle = y <= FAR
    out[middle] = _ratio(_P2, _Q2, y[middle])
    if not middle.all():
        tail = y[~middle]
        z = 1.0 / (tail * tail)
        out[~middle] = (_ONE_OVER_SQRT_PI - z * _ratio(_P3, _Q3, z)) / tail
    return _exp_minus_square(y) * out


# --- float32: one range ------------------------------------------------------------------
# tools/fit_erf_float32.py --degrees 5,5 --clamp 3.92; highest power of t = x^2 first.
# Python floats: NumPy keeps a float32 array float32 when the scalar is a Python float.
FLOAT32_CLAMP = 3.92       # erfc(3.92) = 2.96e-8 < half an ulp of 1.0 in float32
_P_FLOAT32 = (2.0500806e-06, 0.00028488258, 0.0037656259, 0.05274875, 0.19040672, 1.1283791)
_Q_FLOAT32 = (3.809164e-05, 0.001162537, 0.014969236, 0.11410921, 0.5020763, 1.0)


def _horner(coefficients, t):
    """A polynomial in t (highest power first), by Horner's rule, in place: one new array
    (an array also when t is 0-d, so that in-place steps after it work)."""
    out = np.multiply(t, coefficients[0], out=buffers.empty_like(t))
    for c in coefficients[1:-1]:
        out += c
        out *= t
    out += coefficients[-1]
    return out


def erf_float32(x):
    """erf of a float32 array as ``x * P(x^2) / Q(x^2)`` on one range (see the module doc).

    nan stays nan; +-inf gives +-1 (clipped to the range first). The ratio itself can
    round up to 4 ulp above 1 near the clamp: the last clip keeps erf within [-1, 1].
    """
    clipped = np.clip(x, -FLOAT32_CLAMP, FLOAT32_CLAMP, out=buffers.empty_like(x))
    t = np.multiply(clipped, clipped, out=buffers.empty_like(x))
    out = _horner(_P_FLOAT32, t)
    out *= clipped
    out /= _horner(_Q_FLOAT32, t)
    return np.clip(out, -1.0, 1.0, out=out)


def _split(x):
    """(x as float32 or float64, |x|, the near-zero mask, the mask of the rest that is not nan).

    A float32 array is computed in float32 (as torch does, twice as fast, float32's
    accuracy); anything else in float64.
    """
    x = np.asarray(x)
    x = x.astype(np.float32 if x.dtype == np.float32 else np.float64, copy=False)
    magnitude = np.abs(x)
    near = magnitude <= NEAR_ZERO
    return x, magnitude, near, ~near & ~np.isnan(x)


def erfc(x):
    """Complementary error function ``1 - erf(x)`` of a float array (float32 stays float32)."""
    x, magnitude, near, away = _split(x)
    out = np.full_like(x, np.nan)
    out[near] = 1.0 - _erf_near_zero(x[near])
    tail = _erfc_away_from_zero(magnitude[away])
    out[away] = np.where(x[away] > 0, tail, 2.0 - tail)  # erfc(-x) = 2 - erfc(x)
    return out


def erf(x):
    """Error function of a float array (float64: accurate to ~1e-15 absolute; float32 input:
    float32, within 7 ulp)."""
    if isinstance(x, np.ndarray) and x.dtype == np.float32:
        return erf_float32(x)
    x, magnitude, near, away = _split(x)
    out = np.full_like(x, np.nan)
    out[near] = _erf_near_zero(x[near])
    out[away] = np.copysign(1.0 - _erfc_away_from_zero(magnitude[away]), x[away])
    return out


def normal_cdf(x):
    """Phi(x), the standard normal CDF, accurate also deep in the left tail."""
    return 0.5 * erfc(-np.asarray(x) / math.sqrt(2.0))


def normal_pdf(x):
    x = np.asarray(x)
    return np.exp(-0.5 * x * x) / math.sqrt(2.0 * math.pi)


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

_SQRT_2_OVER_PI = float(np.sqrt(2.0 / np.pi))  # a Python float keeps float32 float32
_CUBIC = 0.044715
_ONE_OVER_SQRT_2 = 1.0 / math.sqrt(2.0)
_ONE_OVER_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)


def _gelu_coefficients(coefficients):
    """erf's float32 polynomial (in t = u^2) rewritten for GELU's own input x = u sqrt 2: as a
    polynomial in s = x^2 = 2t, divided by its leading coefficient (so Horner starts with
    ``s + c``, one pass fewer), and that leading coefficient, which the caller folds into
    one scale. Computed here in float64 from the fitted coefficients, so nothing is refit."""
    degree = len(coefficients) - 1
    in_s = [c * 0.5 ** (degree - k) for k, c in enumerate(coefficients)]
    return tuple(c / in_s[0] for c in in_s[1:]), in_s[0]


_P_GELU, _P_GELU_LEAD = _gelu_coefficients(_P_FLOAT32)
_Q_GELU, _Q_GELU_LEAD = _gelu_coefficients(_Q_FLOAT32)
# Phi(x) = 1/2 + erf(u)/2, erf(u) = u P/Q, u = x / sqrt 2: one constant in front of x P~/Q~
_GELU_SCALE = 0.5 * _ONE_OVER_SQRT_2 * _P_GELU_LEAD / _Q_GELU_LEAD
_GELU_SQUARE_CLAMP = 2.0 * FLOAT32_CLAMP ** 2   # |u| <= FLOAT32_CLAMP, in s = x^2


def _monic_horner(coefficients, s):
    """``s^n + c1 s^(n-1) + ... + cn`` (coefficients c1..cn) in place on one new array."""
    out = np.add(s, coefficients[0], out=buffers.empty_like(s))
    for c in coefficients[1:]:
        out *= s
        out += c
    return out


def _normal_cdf_float32(x, square):
    """Phi(x) = (1 + erf(x / sqrt 2)) / 2 in float32 (the formula torch uses for float32), from
    ``square`` = x^2, which the backward reuses.

    The same rational function as ``erf_float32``, fused for GELU in fewer passes (GELU runs
    on every hidden unit): no ``x / sqrt 2`` array (the polynomials take s = x^2 directly),
    monic polynomials, and /sqrt 2, erf's leading ratio and the 1/2 folded into one scale.
    s is clamped where erf(u) reaches 1.0 in float32; x itself is not: beyond the clamp
    ``x P/Q`` (scaled) only grows past its value there, 1/2, and the clip to [-1/2, 1/2]
    (which also keeps Phi within [0, 1], as ``erf_float32``'s last clip does) makes it 1/2
    (an overflow to inf included). nan stays nan.
    Deep in the left tail ``1 + erf`` cancels, so Phi there is accurate only to float32's
    absolute precision (~6e-8), like torch's; float64 input goes through erfc instead.
    """
    s = np.clip(square, 0.0, _GELU_SQUARE_CLAMP, out=buffers.empty_like(x))
    cdf = _monic_horner(_P_GELU, s)
    cdf *= x
    denominator = _monic_horner(_Q_GELU, s)
    cdf /= denominator
    cdf *= _GELU_SCALE
    np.clip(cdf, -0.5, 0.5, out=cdf)
    cdf += 0.5
    return cdf


def _gelu_exact_derivative_float32(x, cdf, square):
    """``Phi(x) + x phi(x)`` in float32, in place on one new array (an array also for 0-d x);
    ``square`` is x^2, kept from the forward."""
    local = np.multiply(square, -0.5, out=buffers.empty_like(x))
    np.exp(local, out=local)
    local *= x
    local *= _ONE_OVER_SQRT_2PI
    local += cdf
    return local


def _gelu_tanh(x):
    """``tanh(u)``, ``u = c (x + k x^3)``: the tanh approximation's inner part, in place on one
    new array (GELU runs on every hidden unit: each avoided temporary is memory traffic)."""
    u = np.multiply(x, x, out=buffers.empty_like(x))
    u *= x
    u *= _CUBIC
    u += x
    u *= _SQRT_2_OVER_PI
    return np.tanh(u, out=u)


def _gelu_tanh_derivative(x, t):
    """d/dx [x/2 (1 + tanh u)] = (1 + tanh u)/2 + x/2 (1 - tanh^2 u) u',  u' = c (1 + 3k x^2)."""
    local = np.multiply(t, t, out=buffers.empty_like(t))
    np.subtract(1.0, local, out=local)                 # 1 - tanh^2 u
    du = np.multiply(x, x, out=buffers.empty_like(x))
    du *= 3 * _CUBIC
    du += 1.0                                          # u' / c
    local *= du
    local *= x
    local *= 0.5 * _SQRT_2_OVER_PI
    np.multiply(t, 0.5, out=du)
    local += du
    local += 0.5
    return local


@register("gelu")
class GELU(Function):
    @staticmethod
    def forward(ctx, a, approximate="none"):
        if approximate not in ("none", "tanh"):
            raise ValueError(f"gelu: approximate must be 'none' or 'tanh', got {approximate!r}")
        ctx.approximate = approximate
        ctx.save_for_backward(a)
        if approximate == "tanh":  # in a's own dtype, as torch
            ctx.tanh = _gelu_tanh(a)
            out = np.add(ctx.tanh, 1.0, out=buffers.empty_like(a))
            out *= a
            out *= 0.5
            return out
        if a.dtype == np.float32:
            with np.errstate(over="ignore"):   # |x| > 1.8e19: x^2 is inf, as it should be
                ctx.square = np.multiply(a, a, out=buffers.empty_like(a))  # kept, as the cdf:
                ctx.cdf = _normal_cdf_float32(a, ctx.square)                # the backward needs both
            return np.multiply(a, ctx.cdf, out=buffers.empty_like(a))
        x = a.astype(np.float64)  # float16 and the rest: computed in float64
        ctx.cdf = normal_cdf(x)
        return (x * ctx.cdf).astype(a.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        if ctx.approximate == "tanh":
            local = _gelu_tanh_derivative(a, ctx.tanh)
        elif a.dtype == np.float32:
            local = _gelu_exact_derivative_float32(a, ctx.cdf, ctx.square)
        else:
            x = a.astype(np.float64)
            local = ctx.cdf + x * normal_pdf(x)  # d/dx [x Phi(x)] = Phi(x) + x phi(x)
        if local.dtype == grad.dtype and local.shape == grad.shape:
            local *= grad   # local is this backward's own new array
            return (local,)
        return ((grad * local).astype(a.dtype, copy=False),)
