"""gradcheck: do the model's gradients agree with finite differences?

    rep = nndebug.gradcheck(model, inputs, targets, loss_fn)   # mode="auto"
    rep.passed, rep.checks, rep.n_forward, rep.findings; print(rep)

The check runs on a private float64 copy (``workbench.Workbench``) with the RNG
replayed before each evaluation, so dropout masks are identical every time and
the user's model, RNG, dtypes, modes and hooks are never touched.

Modes (the cost is forward passes of the whole model):

* ``full``   every element of every tensor, central differences (2 per element).
* ``sample`` ``n_samples`` random elements per tensor, spread over the whole tensor
             (never "the first k": a bug past index 5 must not pass).
* ``fast``   two random directional derivatives per tensor: <grad, u> against
             (L(p + t u) - L(p - t u)) / 2t. A handful of passes per tensor, whatever
             its size.
* ``auto``   ``fast`` first; tensors that fail get an element check (all elements up to
             ``full_limit`` = 64 elements, else ``auto_samples`` = 32 spread elements) so
             the report can name the worst element. Above ``LARGE_MODEL`` trainable
             elements ``auto`` is ``joint``.
* ``joint``  one random direction through every tensor at once, each tensor weighted by
             the inverse of its gradient's norm so that each moves the derivative by a
             comparable amount (``numeric.joint_probe``): two forward passes for the
             whole model. It says whether any gradient is wrong, not which; the first
             ``tensor_budget`` tensors (from the output side) are then checked alone, and
             ``nndebug.locate`` finds the module. The zero-cotangent rule is skipped (a
             backward that ignores grad_output fails the direction anyway).

On top, the zero-cotangent rule: gradients of 0*L must be 0 and those of 2*L
exactly twice those of L. A backward that ignores its incoming gradient fails it.
"""
import dataclasses

import numpy as np

from . import validation
from .findings import Finding
from .numeric import (Probe, directional_check, element_check, joint_probe,
                      scales_with_cotangent, spread_indices, tolerance_for)
from .workbench import Workbench, require_finite_loss

MODES = ("auto", "full", "sample", "fast", "joint")
LARGE_MODEL = 1_000_000
"""Trainable elements above which ``auto`` checks jointly: with every tensor checked on its
own a model of 11M parameters needs a few hundred float64 passes (minutes); jointly it
needs four."""


@dataclasses.dataclass
class TensorCheck:
    """The verdict on one parameter tensor (or one float input)."""

    name: str
    passed: bool
    max_rel_error: float
    n_checked: int
    worst_index: "tuple | None"
    method: str = "directional"
    shape: tuple = ()
    n_kinks: int = 0
    scales_with_grad_output: bool = True
    analytic: "float | None" = None
    numeric: "float | None" = None
    note: str = ""
    scaling: dict = dataclasses.field(default_factory=dict)

    @property
    def size(self):
        return int(np.prod(self.shape)) if self.shape else 1


@dataclasses.dataclass
class GradcheckReport:
    passed: bool
    checks: list
    n_forward: int
    mode: str
    seed: int
    loss: float
    dtype: str
    findings: list = dataclasses.field(default_factory=list)
    seconds: float = 0.0

    def failed(self):
        return [c for c in self.checks if not c.passed]

    def _repr_html_(self):
        """Jupyter shows the verdict, the findings and the plot inline."""
        from .report.html import result_html
        return result_html(self)

    def __str__(self):
        joint = [c for c in self.checks if c.method == "joint"]
        if self.passed:
            verdict = "PASSED"
        elif joint:
            verdict = (f"FAILED - one random direction through all {len(self.checks)} tensors "
                       f"disagrees with finite differences (relative error "
                       f"{joint[0].max_rel_error:.2g}); nndebug.locate finds the module")
        else:
            verdict = (f"FAILED - {len(self.failed())} of {len(self.checks)} tensors disagree "
                       "with finite differences")
        lines = [f"gradcheck ({self.mode}, checked in a private {self.dtype} copy, seed {self.seed}): "
                 f"{verdict}; {self.n_forward} forward passes, loss {self.loss:.6g}"]
        rows = [("tensor", "shape", "checked", "max rel error", "worst element", "verdict")]
        for c in self.checks:
            checked = f"{c.n_checked} {'direction' if c.method == 'directional' else 'element'}" \
                      f"{'s' if c.n_checked != 1 else ''}"
            verdict = "ok" if c.passed else "MISMATCH"
            if c.method == "joint":
                checked = "jointly"
                verdict = "ok (jointly)" if c.passed else "not alone (joint fails)"
            if c.passed and c.n_kinks:
                verdict = f"ok ({c.n_kinks} kink{'s' if c.n_kinks != 1 else ''})"
            if not c.scales_with_grad_output:
                verdict = "MISMATCH (ignores grad_output)"
            rows.append((c.name, str(tuple(c.shape)), checked, f"{c.max_rel_error:.2e}",
                         "-" if c.worst_index is None else str(c.worst_index), verdict))
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
        for row in rows:
            lines.append("  " + "  ".join(v.ljust(w) for v, w in zip(row, widths)).rstrip())
        for f in self.findings:
            if f.severity != "info" or not self.passed:
                lines.append(f"  {f}")
        return "\n".join(lines)

    def to_dict(self):
        return {"passed": self.passed, "mode": self.mode, "seed": self.seed, "loss": self.loss,
                "n_forward": self.n_forward, "dtype": self.dtype,
                "checks": [dataclasses.asdict(c) for c in self.checks],
                "findings": [f.to_dict() for f in self.findings]}


def gradcheck(model, inputs, targets, loss_fn, *, mode="auto", seed=0, check_dtype=np.float64,
              n_samples=32, auto_samples=32, full_limit=64, n_directions=2, tensor_budget=0):
    """Compare every parameter gradient (and input gradient, where the input requires
    grad) with finite differences; returns a ``GradcheckReport``.

    ``model``: a torch.nn.Module or minigrad.nn.Module; ``inputs``/``targets``: that
    framework's tensors or NumPy arrays (integer data stays integer); ``loss_fn(output,
    target)`` must return a scalar. Raises TypeError/ValueError with a readable reason for
    a model of another kind, a non-scalar or non-finite loss, NaN/Inf in the data, or a
    model without trainable parameters.
    """
    import time

    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
    # a count of 0 or below would check nothing and still report "passed"
    n_samples = validation.integer(n_samples, "n_samples")
    auto_samples = validation.integer(auto_samples, "auto_samples")
    n_directions = validation.integer(n_directions, "n_directions")
    full_limit = validation.integer(full_limit, "full_limit", minimum=0)
    tensor_budget = validation.integer(tensor_budget, "tensor_budget", minimum=0)
    started = time.perf_counter()
    bench = Workbench(model, inputs, targets, loss_fn, seed=seed, dtype=check_dtype)
    tol = tolerance_for(check_dtype)
    rng = np.random.default_rng(seed)
    if mode == "auto" and bench.user.parameter_count() > LARGE_MODEL:
        mode = "joint"
    with bench.opened():
        params = bench.parameter_slots()
        input_slots = bench.input_slots()
        if not params and not input_slots:
            raise ValueError(
                f"{type(model).__name__} has no trainable parameters (none with requires_grad=True)"
                " and no input requires grad, so there is no gradient to check")
        loss, grads, input_grads = bench.loss_and_grads(wrt_inputs=bool(input_slots))
        require_finite_loss(loss)
        hooked = [f"'{name}' ({', '.join(found)})" for name, module in bench.work.named_modules()
                  for found in [bench.work.backward_hooks(module)] if found]
        if mode == "joint":
            checks = _joint_checks(bench, params, input_slots, grads, input_grads, loss, tol, rng,
                                   n_directions, tensor_budget)
        else:
            _, grads0, input_grads0 = bench.loss_and_grads(wrt_inputs=bool(input_slots), grad_scale=0.0)
            _, grads2, input_grads2 = bench.loss_and_grads(wrt_inputs=bool(input_slots), grad_scale=2.0)
            private_leaves = bench.work.float_leaves(bench.inputs)
            f0 = bench.loss()
            probes = []
            for name, p in params:
                probes.append((_parameter_probe(bench, name, p, grads[name]),
                               (grads[name], grads0[name], grads2[name])))
            for name, leaf in input_slots:
                position = next(i for i, t in enumerate(private_leaves) if t is leaf)
                probes.append((_parameter_probe(bench, name, leaf, input_grads[position]),
                               (input_grads[position], input_grads0[position], input_grads2[position])))
            checks = []
            for probe, (g1, g0, g2) in probes:
                result = _check_probe(bench.loss, probe, f0, tol, rng, mode, n_samples, auto_samples,
                                      full_limit, n_directions)
                scaling_ok, scaling = scales_with_cotangent(
                    np.zeros(probe.values.shape) if g1 is None else g1,
                    np.zeros(probe.values.shape) if g0 is None else g0,
                    np.zeros(probe.values.shape) if g2 is None else g2, tol)
                check = TensorCheck(
                    name=probe.name, passed=result.passed and scaling_ok,
                    max_rel_error=float(result.max_rel_error), n_checked=result.n_checked,
                    worst_index=result.worst_index, method=result.method,
                    shape=tuple(probe.values.shape), n_kinks=result.n_kinks,
                    scales_with_grad_output=scaling_ok, analytic=result.analytic,
                    numeric=result.numeric, note=result.note, scaling=scaling)
                checks.append(check)
    report = GradcheckReport(passed=all(c.passed for c in checks), checks=checks,
                             n_forward=bench.n_forward, mode=mode, seed=int(seed), loss=float(loss),
                             dtype=str(np.dtype(check_dtype)))
    report.findings = _findings(report, tol)
    if hooked and not report.passed:   # the user's own hooks are the first suspects
        for finding in report.findings:
            if finding.code == "BACKWARD_MISMATCH":
                finding.message += (f"; the model's own hooks change gradients in "
                                    f"{'; '.join(hooked[:3])} - check them first")
    report.seconds = time.perf_counter() - started
    return report


def _joint_checks(bench, params, input_slots, grads, input_grads, loss, tol, rng, n_directions,
                  tensor_budget):
    """``joint`` mode: every tensor in one weighted direction, then up to ``tensor_budget``
    tensors alone (from the output side, where a wrong backward has not yet spread)."""
    private_leaves = bench.work.float_leaves(bench.inputs)
    probes = [_parameter_probe(bench, name, p, grads[name]) for name, p in params]
    for name, leaf in input_slots:
        position = next(i for i, t in enumerate(private_leaves) if t is leaf)
        probes.append(_parameter_probe(bench, name, leaf, input_grads[position]))
    joint, weights = joint_probe("all tensors", probes)
    # f0 is the loss just computed (same parameters, same replayed RNG): no extra pass
    # one direction is conclusive: a wrong gradient moves it by a visible fraction, and the
    # chance that a random direction hides it is that of a Gaussian landing within 1e-4 of 0
    result = directional_check(bench.loss, joint, loss, tol, rng, n_directions=1,
                               weights=weights)
    agree = result.passed
    checks = {}
    if not agree:
        for probe in list(reversed(probes))[:tensor_budget]:
            alone = directional_check(bench.loss, probe, loss, tol, rng, n_directions=1)
            checks[probe.name] = TensorCheck(
                name=probe.name, passed=alone.passed, max_rel_error=float(alone.max_rel_error),
                n_checked=alone.n_checked, worst_index=None, method="directional",
                shape=tuple(probe.values.shape), analytic=alone.analytic, numeric=alone.numeric)
    joint_note = (f"checked jointly with all {len(probes)} tensors: one weighted random "
                  f"direction agrees (relative error {result.max_rel_error:.2g})" if agree else
                  f"not checked alone: the joint direction through all {len(probes)} tensors "
                  f"disagrees (relative error {result.max_rel_error:.2g}), so this one may be "
                  "wrong; nndebug.locate finds the module")
    return [checks.get(probe.name) or TensorCheck(
        name=probe.name, passed=agree, max_rel_error=float(result.max_rel_error),
        n_checked=result.n_checked if agree else 0, worst_index=None, method="joint",
        shape=tuple(probe.values.shape),
        analytic=result.analytic, numeric=result.numeric, note=joint_note) for probe in probes]


def _parameter_probe(bench, name, tensor, grad):
    work = bench.work
    return Probe(name, work.to_numpy(tensor), grad,
                 write=lambda array: work.set_parameter(tensor, array),
                 write_element=lambda i, v: work.set_element(tensor, i, v))


def _check_probe(evaluate, probe, f0, tol, rng, mode, n_samples, auto_samples, full_limit,
                 n_directions):
    if mode == "full":
        return element_check(evaluate, probe, np.arange(probe.size), f0, tol)
    if mode == "sample":
        return element_check(evaluate, probe, spread_indices(probe.size, n_samples, rng), f0, tol)
    fast = directional_check(evaluate, probe, f0, tol, rng, n_directions=n_directions)
    if mode == "fast" or (fast.passed and not fast.inconclusive):
        return fast
    # auto: a failed (or kink-bound) direction -> look at elements to find the worst one
    count = probe.size if probe.size <= full_limit else auto_samples
    elements = element_check(evaluate, probe, spread_indices(probe.size, count, rng), f0, tol)
    elements.n_evals += fast.n_evals
    if not fast.passed and not fast.inconclusive and elements.passed:
        # the direction is conclusive; the sampled elements just missed the wrong ones
        elements.passed = False
        elements.max_rel_error = max(elements.max_rel_error, fast.max_rel_error)
        elements.note = (f"a random directional derivative disagrees (relative error "
                         f"{fast.max_rel_error:.2g}) but none of the {elements.n_checked} sampled "
                         "elements does: only a few elements are wrong; run mode='full'")
    return elements


def _findings(report, tol):
    findings = []
    if report.mode == "joint" and not report.passed:
        unchecked = [c for c in report.checks if c.method == "joint"]
        if unchecked:
            findings.append(Finding(
                code="BACKWARD_MISMATCH", severity="error", where="",
                message=f"the backward pass gives gradients that disagree with finite "
                        f"differences: a random direction through all {len(report.checks)} "
                        f"tensors at once has relative error {unchecked[0].max_rel_error:.2g}",
                evidence={"max_rel_error": unchecked[0].max_rel_error, "method": "joint",
                          "analytic": unchecked[0].analytic, "numeric": unchecked[0].numeric,
                          "tolerance": tol.rtol_directional},
                fix="run nndebug.locate to find the module whose backward is wrong (it checks "
                    "each module alone, at a cost that does not grow with the model's size)"))
    for c in report.checks:
        if c.method == "joint":
            continue
        if not c.scales_with_grad_output:
            findings.append(Finding(
                code="BACKWARD_MISMATCH", severity="error", where=c.name,
                message=f"the gradient of {c.name} does not scale with the gradient flowing into "
                        "the backward pass: scaling the loss by 0 does not give 0 (or by 2 does not "
                        "double it), so some backward ignores its grad_output",
                evidence=dict(c.scaling),
                fix="every backward must multiply its local derivative by the incoming gradient; "
                    "run nndebug.locate to find which one does not"))
        elif not c.passed:
            where = f" (worst at element {c.worst_index}: analytic {c.analytic:.6g}, numeric " \
                    f"{c.numeric:.6g})" if c.worst_index is not None and c.analytic is not None else ""
            findings.append(Finding(
                code="BACKWARD_MISMATCH", severity="error", where=c.name,
                message=f"the backward pass gives {c.name} a gradient that disagrees with finite "
                        f"differences: relative error {c.max_rel_error:.2g}{where}",
                evidence={"max_rel_error": c.max_rel_error, "worst_index": c.worst_index,
                          "analytic": c.analytic, "numeric": c.numeric, "method": c.method,
                          "n_checked": c.n_checked, "tolerance": tol.rtol, "note": c.note},
                fix="run nndebug.locate (or `nndebug gradcheck` on the command line) to find the "
                    "layer and the operation whose backward is wrong"))
        if c.n_kinks:
            findings.append(Finding(
                code="GRADCHECK_KINK", severity="info", where=c.name,
                message=f"{c.n_kinks} check(s) of {c.name} sat on a kink (ReLU at 0, a tied "
                        "max-pool window): the one-sided slopes differ there and the analytic "
                        "value lies between them, which is correct",
                evidence={"n_kinks": c.n_kinks}, fix="nothing to fix"))
    return findings
