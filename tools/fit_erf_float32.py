"""Re-derive the coefficients of minigrad's float32 erf (``minigrad/ops/special.py``).

For float32 input minigrad computes ``erf(x)`` on one range, as one ratio of polynomials::

    x = clip(x, -CLAMP, CLAMP)          # beyond CLAMP, erf(x) is 1.0 in float32
    t = x * x
    erf(x) ~= x * P(t) / Q(t)           # P of degree M, Q of degree N, Q(0) = 1
    erf(x) = clip(erf(x), -1, 1)        # float32 rounding can land just above 1

about 2 (M + N) + 5 in-place NumPy passes in float32, against Cody's three ranges with masks
(exact to float64, many times slower on the big arrays GELU sees). This script fits P and Q
and measures the result the way minigrad computes it (coefficients rounded to float32,
Horner's rule in float32), in units in the last place of float32.

The fit: ``erf(x) / x`` is a smooth function ``g(t)`` of ``t = x^2``. We want P/Q with the
smallest largest *relative* error on ``[0, CLAMP^2]``. That problem is not linear, so we
solve a sequence of linear least-squares problems (Loeb's linearization): minimise
``w_i * (P(t_i) - g_i Q(t_i)) / (g_i Q_prev(t_i))``, which is the relative error when
``Q_prev`` is the previous ``Q``; after each solve the weights grow where the error is
largest (Lawson's iteration, ``w <- w * |error|``), which drives the fit towards the
equal-ripple (minimax) one. The reference is ``math.erf`` in float64.

Run:  python tools/fit_erf_float32.py [--degrees 5,5] [--clamp 3.92] [--check-all]
      (--check-all measures every float32 in [2^-40, CLAMP], ~20 s; the default a
      dense sample)
"""
import argparse
import math

import numpy as np

ROOT_SAMPLES = 20000


def erf_over_x(x):
    """``erf(x) / x`` in float64 (``2 / sqrt(pi)`` at 0), from ``math.erf``."""
    return np.array([math.erf(v) / v if v > 0 else 2.0 / math.sqrt(math.pi) for v in x])


def fit(m, n, clamp, iterations=200):
    """(P, Q) as coefficient tuples in t, lowest power first, Q[0] = 1; and the fit's
    largest relative error in float64."""
    scale = clamp * clamp                        # fit in u = t / scale in [0, 1]: well conditioned
    x = clamp * np.sin(np.linspace(0.0, np.pi / 2, ROOT_SAMPLES))   # denser near both ends
    u = x * x / scale
    g = erf_over_x(x)
    powers_p = u[:, None] ** np.arange(m + 1)
    powers_q = u[:, None] ** np.arange(1, n + 1)
    design = np.hstack([powers_p, -g[:, None] * powers_q])   # unknowns p_0..p_m, q_1..q_n
    weights = np.full_like(u, 1.0 / len(u))
    q_previous = np.ones_like(u)
    best = (np.inf, None, None)
    for _ in range(iterations):
        row_scale = np.sqrt(weights) / (g * q_previous)
        solution = np.linalg.lstsq(design * row_scale[:, None], g * row_scale, rcond=None)[0]
        p, q = solution[:m + 1], np.concatenate([[1.0], solution[m + 1:]])
        q_values = powers_q @ q[1:] + 1.0
        error = (powers_p @ p) / q_values / g - 1.0
        worst = np.max(np.abs(error))
        if worst < best[0]:
            best = (worst, p, q)
        q_previous = q_values
        weights = weights * np.abs(error)
        weights /= weights.sum()
    worst, p, q = best
    back_to_t = scale ** -np.arange(max(m, n) + 1)       # coefficient of u^k -> of t^k
    return tuple(p * back_to_t[:m + 1]), tuple(q * back_to_t[:n + 1]), worst


def horner_float32(coefficients_low_first, t):
    """The polynomial as minigrad evaluates it: float32 coefficients, in place, highest first."""
    high_first = [float(np.float32(c)) for c in reversed(coefficients_low_first)]
    out = t * high_first[0]
    out += high_first[1]
    for c in high_first[2:]:
        out *= t
        out += c
    return out


def erf_float32(x, p, q, clamp):
    """The float32 erf as minigrad computes it, for coefficients p, q (lowest power first)."""
    x = np.clip(x.astype(np.float32), -clamp, clamp)
    t = x * x
    out = horner_float32(p, t)
    out *= x
    out /= horner_float32(q, t)
    return np.clip(out, -1.0, 1.0, out=out)    # the ratio rounds a few ulp above 1 near clamp


def ulp_errors(x, p, q, clamp):
    """|float32 result - erf(x)| in float32 ulps of the correctly rounded erf(x)."""
    from minigrad.ops.special import erf   # float64 path: Cody's, accurate to ~2e-15
    reference = erf(x.astype(np.float64))
    spacing = np.spacing(np.abs(reference).astype(np.float32)).astype(np.float64)
    return np.abs(erf_float32(x, p, q, clamp) - reference) / spacing


def float32_grid(clamp, every=1, low=2.0 ** -40):
    """Every ``every``-th float32 from ``low`` up to a little beyond ``clamp``."""
    first = np.float32(low).view(np.int32)
    last = np.float32(clamp * 1.05).view(np.int32)
    return np.arange(first, last + 1, every, dtype=np.int32).view(np.float32)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--degrees", default="5,5", help="M,N: degrees of P and Q in t")
    parser.add_argument("--clamp", type=float, default=3.92)
    parser.add_argument("--check-all", action="store_true", help="every float32, not a sample")
    args = parser.parse_args()
    m, n = (int(d) for d in args.degrees.split(","))
    p, q, fit_error = fit(m, n, args.clamp)
    print(f"degrees ({m}, {n}), clamp {args.clamp}: largest relative error of the fit "
          f"(float64) {fit_error:.2e}")
    print("P (lowest power first):", ", ".join(f"{np.float32(c)!r}" for c in p))
    print("Q (lowest power first):", ", ".join(f"{np.float32(c)!r}" for c in q))
    x = float32_grid(args.clamp, every=1 if args.check_all else 97)
    worst = 0.0
    for chunk in np.array_split(x, max(1, len(x) // 1_000_000)):
        worst = max(worst, float(np.max(ulp_errors(chunk, p, q, args.clamp))))
    print(f"float32 evaluation on {len(x):,} float32 values in [2^-40, {args.clamp * 1.05:.3f}]:"
          f" largest error {worst:.2f} ulp")


if __name__ == "__main__":
    main()
