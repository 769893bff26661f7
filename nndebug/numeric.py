"""Finite differences, the tolerances behind every verdict, and kink detection.

Nothing here knows a framework. A check sees a scalar function ``evaluate()``
(the loss, or one module's output contracted with a random cotangent) and a
``Probe``: one array that function depends on, which the check may perturb, plus
the analytical gradient the framework claims for it. Two ways to compare:

* ``directional_check``: pick a random unit direction ``u`` and compare
  ``<grad, u>`` with ``(f(x + t u) - f(x - t u)) / 2t``. Two evaluations test the
  whole array at once, so a tensor of a million elements costs what a scalar does.
* ``element_check``: central differences for chosen elements, the slow exact way
  that also says *which* element is wrong.

Kinks. ReLU at 0, |x| at 0, a max-pool window whose maximum is tied: the function
has no derivative there, and the two one-sided differences disagree. Such a point
is counted as a kink (information), never as a mismatch: any value between the
one-sided slopes is a valid subgradient for a single kink, and for a direction
that crosses several kinks at once (ties in many windows, weighted by cotangents
of both signs) not even that interval bounds the right answer. A directional check
that hits a kink tries a fresh direction; if every direction does, the element
check takes over, where one element meets one kink at a time.

Why random directions and random elements, never "the first k": a bug that only
touches later elements (a loop left at ``range(5)``) passes any check that looks
at the first few elements. ``spread_indices`` picks random elements spread over
the whole tensor.
"""
import dataclasses

import numpy as np


@dataclasses.dataclass(frozen=True)
class Tolerance:
    """How gradients of one floating-point precision are compared.

    eps:                step of the central difference for one element.
    rtol:               relative error allowed in an element check.
    step:               step along a unit direction in a directional check.
    rtol_directional:   relative error allowed in a directional check.
    floor:              gradients smaller than ``floor * scale`` are compared in absolute
                        terms (relative error of a near-zero number is noise); ``scale`` is
                        the size of the terms summed into f: max(1, |f|, ||terms||_2), because
                        the rounding error of a sum grows with its terms, not with its value.
    """

    eps: float
    rtol: float
    step: float
    rtol_directional: float
    floor: float


# float64 follows torch.autograd.gradcheck (eps 1e-6, rtol 1e-3): a central difference
# with step h has truncation error ~h^2 f''' and rounding error ~ulp(f)/h, both far below
# 1e-3 relative for h = 1e-6 in float64. A directional derivative tests all elements at
# once against a single number, so its rounding error is tiny and it can be held to
# 1e-4; the step along the unit direction is larger (1e-5) because each element moves by
# only step/sqrt(n). float32 and float16 rows are for checks run in those precisions
# (gradcheck(..., check_dtype=np.float32)); nndebug checks in float64 by default. Their
# floors follow from rounding: a sum with terms of size S carries an error ~ulp * S, which
# a central difference divides by 2 eps - 3e-5 S in float32 - so gradients below ~1e-2 S
# cannot be told apart from noise there.
TOLERANCES = {
    np.dtype(np.float64): Tolerance(eps=1e-6, rtol=1e-3, step=1e-5, rtol_directional=1e-4,
                                    floor=1e-5),
    np.dtype(np.float32): Tolerance(eps=1e-3, rtol=3e-2, step=3e-3, rtol_directional=1e-2,
                                    floor=1e-2),
    np.dtype(np.float16): Tolerance(eps=3e-2, rtol=2e-1, step=5e-2, rtol_directional=1e-1,
                                    floor=3e-1),
}


def tolerance_for(dtype):
    """The ``Tolerance`` for a float dtype (float64's for anything more precise)."""
    dtype = np.dtype(dtype)
    if dtype.kind != "f":
        raise TypeError(f"gradient checks need a float dtype, got {dtype}")
    if dtype in TOLERANCES:
        return TOLERANCES[dtype]
    return TOLERANCES[np.dtype(np.float64)] if dtype.itemsize > 8 else TOLERANCES[np.dtype(np.float16)]


def relative_error(analytic, numeric, floor):
    """|a - n| / max(|a|, |n|, floor): 0 when they agree, about 1 when one is wrong."""
    analytic, numeric = float(analytic), float(numeric)
    if not (np.isfinite(analytic) and np.isfinite(numeric)):
        return 0.0 if analytic == numeric else float("inf")
    return abs(analytic - numeric) / max(abs(analytic), abs(numeric), floor)


def noise_floor(tol, f0, scale=0.0):
    """Below this size a gradient is compared in absolute terms (see ``Tolerance.floor``)."""
    return tol.floor * max(1.0, abs(float(f0)), float(scale))


def spread_indices(size, count, rng):
    """``count`` random flat indices spread over ``range(size)`` (all of them if fewer).

    The range is cut into ``count`` equal strata and one index is drawn from each,
    so the picks are random but cover the start, middle and end of the tensor alike.
    """
    if count >= size:
        return np.arange(size)
    edges = np.linspace(0, size, count + 1).astype(np.int64)
    return np.array([int(rng.integers(lo, hi)) if hi > lo else int(lo)
                     for lo, hi in zip(edges[:-1], edges[1:])], dtype=np.int64)


class Probe:
    """One array a check may perturb, with the analytical gradient claimed for it.

    ``write(array)`` puts new values where ``evaluate`` reads them;
    ``write_element(flat_index, value)`` (optional) changes one element cheaply.
    ``restore()`` puts the original values back exactly.
    """

    def __init__(self, name, values, grad, write, write_element=None):
        self.name = name
        self.values = np.array(values, dtype=np.float64, copy=True)
        self.grad = np.zeros(self.values.shape) if grad is None else \
            np.asarray(grad, dtype=np.float64).reshape(self.values.shape)
        self._write = write
        self._write_element = write_element

    @property
    def size(self):
        return self.values.size

    def set(self, array):
        self._write(array)

    def set_element(self, flat_index, value):
        if self._write_element is not None:
            self._write_element(int(flat_index), float(value))
        else:
            array = self.values.copy()
            array.reshape(-1)[flat_index] = value
            self._write(array)

    def restore_element(self, flat_index):
        self.set_element(flat_index, self.values.reshape(-1)[flat_index])

    def restore(self):
        self._write(self.values)


@dataclasses.dataclass
class CheckResult:
    """What one check of one probe found."""

    name: str
    passed: bool
    max_rel_error: float = 0.0
    n_checked: int = 0            # elements compared, or directions for a directional check
    worst_index: "tuple | None" = None
    method: str = "directional"   # "directional" | "elements"
    n_evals: int = 0
    kinks: list = dataclasses.field(default_factory=list)  # flat indices (or "direction") at kinks
    analytic: "float | None" = None   # at the worst element / direction
    numeric: "float | None" = None
    inconclusive: bool = False    # every direction tried hit a kink
    note: str = ""

    @property
    def n_kinks(self):
        return len(self.kinks)


def _verdict(analytic, fp, fm, f0, step, rtol, floor):
    """(rel_error, passed, at_kink, central) for one derivative from three evaluations.

    A perturbed value that is NaN/Inf (the step left the function's domain, e.g. a
    negative base raised to a perturbed exponent) makes the point undecidable: it is
    treated like a kink, not as a mismatch.
    """
    if not (np.isfinite(fp) and np.isfinite(fm) and np.isfinite(f0)):
        return 0.0, True, True, float("nan")
    central = (fp - fm) / (2 * step)
    rel = relative_error(analytic, central, floor)
    if rel <= rtol:
        return rel, True, False, central
    forward, backward = (fp - f0) / step, (f0 - fm) / step
    if relative_error(forward, backward, floor) > rtol:
        # one-sided slopes disagree: the step crossed a kink (ReLU at 0, a tied max). The
        # derivative does not exist there, so nothing can be concluded - never a mismatch.
        return 0.0, True, True, central
    return rel, False, False, central


def directional_check(evaluate, probe, f0, tol, rng, *, n_directions=2, retries=2, scale=0.0,
                      weights=None):
    """Compare ``<grad, u>`` with a central difference along random unit directions ``u``.

    A direction that crosses a kink is replaced by a fresh one (up to ``retries``
    times); if every direction hits a kink the result is marked ``inconclusive``
    (and passes: an element check should decide, see ``gradcheck``'s auto mode).

    ``weights`` (one per element, optional) stretch the random direction before it is
    normalised: a probe made of several tensors (``joint_probe``) weights each by the
    inverse of its gradient's norm, so that every tensor moves ``<grad, u>`` by a
    comparable amount and a wrong gradient in a small one is not drowned by a big one.
    """
    result = CheckResult(probe.name, True, method="directional")
    if probe.size == 0:
        return result
    floor = noise_floor(tol, f0, scale)
    grad = probe.grad.reshape(-1)
    if weights is None:
        typical = float(np.linalg.norm(grad)) / np.sqrt(grad.size)
    else:   # the spread of <grad, u> for the stretched direction
        typical = float(np.linalg.norm(grad * weights) / (np.linalg.norm(weights) or 1.0))
    base = probe.values.reshape(-1)
    done, budget = 0, n_directions + retries
    while done < n_directions and budget > 0:
        budget -= 1
        u = rng.standard_normal(probe.size)
        if weights is not None:
            u *= weights
        u /= np.linalg.norm(u) or 1.0
        analytic = float(grad @ u)
        try:
            probe.set((base + tol.step * u).reshape(probe.values.shape))
            fp = evaluate()
            probe.set((base - tol.step * u).reshape(probe.values.shape))
            fm = evaluate()
        finally:
            probe.restore()
        result.n_evals += 2
        rel, passed, kink, central = _verdict(analytic, fp, fm, f0, tol.step, tol.rtol_directional,
                                              max(floor, typical))
        if kink:
            result.kinks.append("direction")
            continue              # inconclusive here: try another direction
        done += 1
        result.n_checked += 1
        if rel >= result.max_rel_error:
            result.max_rel_error, result.analytic, result.numeric = rel, analytic, central
        if not passed:
            result.passed = False
            break
    if done == 0:
        result.inconclusive = True
    return result


def element_check(evaluate, probe, indices, f0, tol, *, scale=0.0):
    """Central differences for the given flat indices; reports the worst element."""
    result = CheckResult(probe.name, True, method="elements")
    floor = noise_floor(tol, f0, scale)
    grad = probe.grad.reshape(-1)
    base = probe.values.reshape(-1)
    worst = -1.0
    for flat in np.asarray(indices, dtype=np.int64):
        x = base[flat]
        try:
            probe.set_element(flat, x + tol.eps)
            fp = evaluate()
            probe.set_element(flat, x - tol.eps)
            fm = evaluate()
        finally:
            probe.restore_element(flat)
        result.n_evals += 2
        result.n_checked += 1
        rel, passed, kink, central = _verdict(grad[flat], fp, fm, f0, tol.eps, tol.rtol, floor)
        if kink:
            result.kinks.append(int(flat))
        if not passed:
            result.passed = False
        if rel > worst:
            worst = rel
            result.max_rel_error = rel
            result.worst_index = tuple(int(i) for i in np.unravel_index(flat, probe.values.shape))
            result.analytic, result.numeric = float(grad[flat]), float(central)
    return result


def scales_with_cotangent(grad_at_1, grad_at_0, grad_at_2, tol):
    """(ok, evidence) for the zero-cotangent rule: a backward must be linear in grad_output.

    ``grad_at_c`` is the gradient of ``c * f``. Gradients of ``0 * f`` must be zero and
    those of ``2 * f`` exactly twice those of ``f`` (multiplying by 2 is exact in binary
    floating point). A backward that ignores its incoming gradient fails both.
    """
    g1 = np.asarray(grad_at_1, dtype=np.float64)
    size = max(float(np.max(np.abs(g1))) if g1.size else 0.0, 1e-30)
    zero_err = float(np.max(np.abs(grad_at_0))) / size if np.size(grad_at_0) else 0.0
    double_err = float(np.max(np.abs(np.asarray(grad_at_2) - 2 * g1))) / (2 * size) if g1.size else 0.0
    limit = tol.rtol * 1e-3  # exact arithmetic: allow only rounding differences
    ok = zero_err <= limit and double_err <= limit
    return ok, {"grad_at_zero_cotangent": zero_err, "error_at_double_cotangent": double_err}


def joint_probe(name, probes, *, floor_fraction=1e-3):
    """(probe, weights): several probes checked as one, with a direction weighting each.

    One directional derivative then tests every tensor at once, for two evaluations in
    all - the check that scales with a model's structure, not its element count. Each
    tensor's part of the direction is weighted by 1 / ||its gradient|| (but never more
    than 1 / (``floor_fraction`` x the largest gradient norm), so a tensor with no
    gradient does not take over the direction): every tensor then contributes about
    equally to ``<grad, u>``, and a wrong gradient in any of them moves it by a visible
    fraction.
    """
    sizes = [p.size for p in probes]
    norms = [float(np.linalg.norm(p.grad)) for p in probes]
    largest = max(norms + [0.0])
    floor = max(largest * floor_fraction, 1e-300)
    weights = np.concatenate([np.full(p.size, 1.0 / max(n, floor)) for p, n in zip(probes, norms)]) \
        if probes else np.zeros(0)
    values = np.concatenate([p.values.reshape(-1) for p in probes]) if probes else np.zeros(0)
    grad = np.concatenate([p.grad.reshape(-1) for p in probes]) if probes else np.zeros(0)

    def write(array):
        flat, start = np.asarray(array).reshape(-1), 0
        for p, size in zip(probes, sizes):
            p.set(flat[start:start + size].reshape(p.values.shape))
            start += size

    return Probe(name, values, grad, write), weights