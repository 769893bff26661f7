"""locate: which layer, and which operation, computes a wrong gradient?

A bug in one layer's backward corrupts the gradient of every layer before it, so
the whole-model gradcheck fails for all of them and says nothing about the culprit.
``locate`` checks each piece alone instead:

1. One forward pass of a private float64 copy records what every module call
   received and returned (and the RNG state before it, so dropout can be replayed).
2. Each call is re-run alone on exactly those inputs: its backward (a vector-Jacobian
   product with a random cotangent) is compared with finite differences of
   <module(x), cotangent>, with respect to each float input and each of the module's
   own parameters. Containers are also checked against all their descendants'
   parameters together, which catches faults in how children are wired (a re-used
   tensor whose gradients are not added up).
3. The culprits are the innermost failing modules: a container that fails only
   because a child fails is not named, the child is.
4. On minigrad the recorded primitives (``OpRecord``s) of a culprit are checked one
   by one on float64 copies of their recorded inputs, which names the faulty
   primitive (``Suspect.op`` = its REGISTRY name). If every primitive passes alone
   but the module does not, the fault is in how the engine combines them
   (``op = "engine"``).

Every check also applies the zero-cotangent rule (a zero cotangent must give zero
gradients, a doubled one doubled gradients).
"""
import dataclasses

import numpy as np

from . import validation
from .numeric import (Probe, directional_check, element_check, joint_probe,
                      scales_with_cotangent, spread_indices, tolerance_for)
from .workbench import Workbench, require_finite_loss

ENGINE = "engine"


@dataclasses.dataclass
class Suspect:
    """A module (and on minigrad a primitive) whose backward disagrees with finite differences."""

    module: str               # qualified name as named_modules() spells it ("" the root / the loss)
    op: "str | None"          # REGISTRY name of the faulty primitive, "engine", or None
    wrt: str                  # "input" or the parameter name ("weight", "bias", "0.weight" ...)
    rel_error: float
    evidence: str
    module_type: str = ""
    location: str = "model"   # "model" or "loss" (the loss function, outside the model)
    call_index: int = 0       # which call of the module (a module used twice has calls 0, 1)

    def headline(self):
        where = "the loss function" if self.location == "loss" else \
            (f"module '{self.module}'" if self.module else "the root module (its own forward code)")
        op = f", primitive {self.op}" if self.op and self.op != ENGINE else \
            (", the autograd engine" if self.op == ENGINE else "")
        return (f"{where} ({self.module_type}{op}), gradient w.r.t. {self.wrt}: relative error "
                f"{self.rel_error:.2g}")

    def __str__(self):
        return f"{self.headline()} - {self.evidence}"


@dataclasses.dataclass
class CallVerdict:
    """How one module call fared on its own."""

    name: str
    module_type: str
    index: int
    position: int
    failed: dict                  # wrt -> relative error, for every wrt that failed
    checked: list                 # wrt names checked
    n_evals: int = 0
    kinks: int = 0
    error: str = ""               # the call could not be re-run alone
    is_loss: bool = False
    scaling_failed: list = dataclasses.field(default_factory=list)
    is_container: bool = False
    inherited: bool = False       # not re-run: a module inside it already fails
    inside: object = None         # how to break a "parameters inside" failure down (lazy)

    @property
    def passed(self):
        return not self.failed and not self.inherited


@dataclasses.dataclass
class LocateReport:
    suspects: list
    calls: list                   # CallVerdict per checked module call
    n_forward: int                # whole-model forward passes
    n_module_evals: int           # single-module (and single-primitive) evaluations
    framework: str = ""
    notes: list = dataclasses.field(default_factory=list)
    seconds: float = 0.0

    @property
    def found(self):
        return bool(self.suspects)

    def _repr_html_(self):
        """Jupyter shows the verdict, the findings and the plot inline."""
        from .report.html import result_html
        return result_html(self)

    def __str__(self):
        checked = sum(1 for c in self.calls if c.checked)
        unchecked = sum(1 for c in self.calls if c.error)
        if not self.suspects and unchecked:
            lines = [f"locate: no suspects among the {checked} module calls checked alone, but "
                     f"{unchecked} could not be re-run alone and are unchecked (see the notes)"]
        elif not self.suspects:
            lines = [f"locate: no suspects - every backward agrees with finite differences "
                     f"({checked} module calls checked alone, {self.n_module_evals} evaluations)"]
        else:
            lines = [f"locate: {len(self.suspects)} suspect{'s' if len(self.suspects) != 1 else ''}"
                     f" (most likely first; {checked} module calls checked alone, "
                     f"{self.n_module_evals} evaluations)"]
            for rank, s in enumerate(self.suspects, 1):
                lines.append(f"  {rank}. {s.headline()}")
                lines.append(f"     {s.evidence}")
        lines.extend(f"  note: {n}" for n in self.notes)
        return "\n".join(lines)

    def to_dict(self):
        return {"suspects": [dataclasses.asdict(s) for s in self.suspects],
                "n_forward": self.n_forward, "n_module_evals": self.n_module_evals,
                "notes": list(self.notes)}


STRATEGIES = ("auto", "thorough", "scalable")
LARGE_MODEL = 1_000_000
"""Trainable elements above which ``strategy="auto"`` is ``scalable``."""


def locate(model, inputs, targets, loss_fn, *, seed=0, check_dtype=np.float64, n_directions=2,
           n_samples=48, strategy="auto"):
    """Check every module (and on minigrad every primitive) alone; return a ``LocateReport``
    whose ``suspects`` are empty when every backward agrees with finite differences.

    ``strategy``: ``thorough`` checks every module call, containers included (which re-run
    their whole subtree - the root re-runs the model), each tensor in its own directions,
    with the zero-cotangent rule. ``scalable`` checks the leaf modules (and the loss) with
    one joint weighted direction each - a handful of passes of each module alone, so the
    cost is a few forward passes of the model whatever its size - then looks closer only
    at the modules that fail; containers are checked only when no leaf fails but the whole
    model does (a fault in a container's own code or wiring). ``auto``: ``scalable`` above
    ``LARGE_MODEL`` trainable elements, else ``thorough``.
    """
    import time

    if strategy not in STRATEGIES:
        raise ValueError(f"strategy must be one of {', '.join(STRATEGIES)}, got {strategy!r}")
    # a count of 0 or below would check nothing and still find no suspect
    n_samples = validation.integer(n_samples, "n_samples")
    n_directions = validation.integer(n_directions, "n_directions")
    started = time.perf_counter()
    bench = Workbench(model, inputs, targets, loss_fn, seed=seed, dtype=check_dtype)
    if strategy == "auto":
        strategy = "scalable" if bench.user.parameter_count() > LARGE_MODEL else "thorough"
    rng = np.random.default_rng(seed)
    counter = _Counter()
    with bench.opened():
        work = bench.work
        if strategy == "scalable":
            suspects, verdicts, notes = _locate_scalable(bench, rng, counter, n_directions,
                                                         n_samples, check_dtype)
        else:
            suspects, verdicts, notes = _locate_thorough(bench, rng, counter, n_directions,
                                                         n_samples, check_dtype)
    notes += [f"module '{v.name}' could not be re-run alone: {v.error}"
              for v in verdicts if v is not None and v.error]
    report = LocateReport(suspects=suspects, calls=[v for v in verdicts if v is not None],
                          n_forward=bench.n_forward, n_module_evals=counter.n,
                          framework=bench.user.framework, notes=notes)
    report.seconds = time.perf_counter() - started
    return report


def _locate_thorough(bench, rng, counter, n_directions, n_samples, check_dtype):
    work = bench.work
    loss, _, _ = bench.loss_and_grads()
    require_finite_loss(loss)
    recording = bench.record(record_primitives=work.supports_primitives)
    calls = recording.calls
    verdicts = [None] * len(calls)
    has_failing_descendant = set()
    # children finish before their parents: check in that order, and do not re-run a
    # container whose child already failed - it cannot be the culprit anyway
    for position in sorted(range(len(calls)), key=lambda i: calls[i].order):
        call = calls[position]
        if position in has_failing_descendant:
            verdicts[position] = CallVerdict(
                call.name, work.module_type(call.module), call.index, position, failed={},
                checked=[], inherited=True, is_container=True)
        else:
            verdicts[position] = _check_call(work, call, position, recording, rng, counter,
                                             n_directions, n_samples, check_dtype)
        if not verdicts[position].passed:
            parent = call.parent
            while parent is not None:
                has_failing_descendant.add(parent)
                parent = calls[parent].parent
    suspects, notes = _suspects(work, recording, verdicts, rng, counter, n_directions,
                                n_samples)
    return suspects, verdicts, notes


def _locate_scalable(bench, rng, counter, n_directions, n_samples, dtype):
    """Leaves first, one joint direction each; a closer look only where that fails."""
    work = bench.work
    with validation.explain_forward_error(bench.user, bench.raw_inputs, bench.raw_targets):
        recording = bench.record(record_primitives=work.supports_primitives)
    calls = recording.calls
    loss_call = next((c for c in calls if c.is_loss), None)
    if loss_call is not None and loss_call.outputs:
        require_finite_loss(float(np.asarray(loss_call.outputs[0]).reshape(-1)[0]))
    verdicts = [None] * len(calls)
    leaves = [i for i, c in enumerate(calls)
              if c.is_loss or not work.module_children(c.module)]
    for position in leaves:
        verdicts[position] = _joint_call_check(work, calls[position], position, rng, counter,
                                               dtype)
    for position in leaves:   # a closer look (each wrt alone) at the leaves that fail
        if verdicts[position].failed:
            closer = _check_call(work, calls[position], position, recording, rng, counter,
                                 n_directions, n_samples, dtype)
            verdicts[position] = closer if closer.failed else verdicts[position]
    notes = []
    if not any(v.failed for v in verdicts if v is not None) and not _whole_model_agrees(bench,
                                                                                       rng):
        # no leaf fails but the model does: the fault sits in a container's own code or
        # wiring; check the containers innermost first (each re-runs its subtree) and stop
        # at the first that fails
        notes.append("every leaf module agrees alone but the whole model does not: the "
                     "containers were checked too")
        for position in sorted((i for i in range(len(calls)) if verdicts[i] is None),
                               key=lambda i: calls[i].order):
            verdicts[position] = _check_call(work, calls[position], position, recording, rng,
                                             counter, n_directions, n_samples, dtype)
            if verdicts[position].failed:
                break
    for position, call in enumerate(calls):   # the rest: not re-run, nothing failed inside
        if verdicts[position] is None:
            verdicts[position] = CallVerdict(call.name, work.module_type(call.module),
                                             call.index, position, failed={}, checked=[],
                                             is_container=True)
    suspects, more = _suspects(work, recording, verdicts, rng, counter, n_directions, n_samples)
    return suspects, verdicts, notes + more


def _whole_model_agrees(bench, rng):
    """One weighted direction through every trainable parameter of the whole model (one
    backward, two forward passes): does anything disagree that the leaves did not show?"""
    tol = tolerance_for(bench.dtype)
    loss, grads, _ = bench.loss_and_grads()
    params = bench.parameter_slots()
    if not params:
        return True
    probes = [_tensor_probe(bench.work, name, p, grads[name]) for name, p in params]
    joint, weights = joint_probe("all parameters", probes)
    return directional_check(bench.loss, joint, loss, tol, rng, n_directions=1,
                             weights=weights).passed


def _joint_call_check(work, call, position, rng, counter, dtype):
    """One weighted direction through the call's float inputs and own parameters at once:
    one backward and two forward passes of the module alone."""
    module_type = "loss" if call.is_loss else work.module_type(call.module)
    verdict = CallVerdict(call.name, module_type, call.index, position, failed={}, checked=[],
                          is_loss=call.is_loss)
    own = [] if call.is_loss else work.trainable_own_parameters(call.module)
    if not call.outputs or (not call.inputs and not own):
        return verdict
    tol = tolerance_for(dtype)
    cotangents = [rng.standard_normal(np.shape(o)) for o in call.outputs]
    try:
        value, input_grads, param_grads = work.module_vjp(call, cotangents)
        counter.n += 1
        current = [np.array(a, dtype=np.float64) for a in call.inputs]
        evaluate = counter.wrap(lambda: work.module_value(call, cotangents, current))
    except Exception as error:  # a module that cannot be re-run alone is reported, not fatal
        verdict.error = f"{type(error).__name__}: {error}".splitlines()[0][:200]
        if call.is_loss:
            raise ValueError(f"loss_fn raised {verdict.error} when locate re-ran it on a copy "
                             "of the model's output, so no gradient could be checked; make "
                             "loss_fn(output, target) a pure function of its arguments") from error
        return verdict
    probes = [_array_probe("input" if len(call.inputs) == 1 else f"input[{i}]", current, i,
                           input_grads[i]) for i in range(len(call.inputs))]
    probes += [_tensor_probe(work, name, p, param_grads[name]) for name, p in own]
    verdict.checked = [p.name for p in probes]
    joint, weights = joint_probe("input and parameters", probes)
    # the value from the vjp's own forward is f0: same inputs, parameters and RNG
    result = directional_check(evaluate, joint, value, tol, rng, n_directions=1,
                               scale=_terms_size(call.outputs, cotangents), weights=weights)
    verdict.kinks += result.n_kinks
    if not result.passed:
        verdict.failed["input and parameters"] = float(result.max_rel_error)
    return verdict


class _Counter:
    def __init__(self):
        self.n = 0

    def wrap(self, fn):
        def counted(*args, **kwargs):
            self.n += 1
            return fn(*args, **kwargs)
        return counted


# --- one module call, alone ---------------------------------------------------------------

def _check_call(work, call, position, recording, rng, counter, n_directions, n_samples, dtype):
    module_type = "loss" if call.is_loss else work.module_type(call.module)
    verdict = CallVerdict(call.name, module_type, call.index, position, failed={}, checked=[],
                          is_loss=call.is_loss,
                          is_container=not call.is_loss and bool(work.module_children(call.module)))
    if not call.outputs:
        return verdict
    own = [] if call.is_loss else work.trainable_own_parameters(call.module)
    descendants = [] if call.is_loss else _descendant_parameters(work, call.module)
    if not call.inputs and not own and not descendants:
        return verdict
    tol = tolerance_for(dtype)
    cotangents = [rng.standard_normal(np.shape(o)) for o in call.outputs]
    try:
        value, input_grads, param_grads = work.module_vjp(call, cotangents)
        _, zero_in, zero_params = work.module_vjp(call, [c * 0 for c in cotangents])
        _, double_in, double_params = work.module_vjp(call, [c * 2 for c in cotangents])
        counter.n += 3
        current = [np.array(a, dtype=np.float64) for a in call.inputs]
        evaluate = counter.wrap(lambda: work.module_value(call, cotangents, current))
        f0 = evaluate()
        scale = _terms_size(call.outputs, cotangents)
    except Exception as error:  # a module that cannot be re-run alone is reported, not fatal
        verdict.error = f"{type(error).__name__}: {error}".splitlines()[0][:200]
        if call.is_loss:   # but without the loss nothing downstream of it can be trusted
            raise ValueError(f"loss_fn raised {verdict.error} when locate re-ran it on a copy "
                             "of the model's output, so no gradient could be checked; make "
                             "loss_fn(output, target) a pure function of its arguments") from error
        return verdict

    probes = []
    for i in range(len(call.inputs)):
        name = "input" if len(call.inputs) == 1 else f"input[{i}]"
        probes.append((_array_probe(name, current, i, input_grads[i]),
                       (input_grads[i], zero_in[i], double_in[i])))
    for pname, p in own:
        probes.append((_tensor_probe(work, pname, p, param_grads[pname]),
                       (param_grads[pname], zero_params[pname], double_params[pname])))
    for probe, (g1, g0, g2) in probes:
        verdict.checked.append(probe.name)
        ok, _ = scales_with_cotangent(g1, g0, g2, tol)
        if not ok:
            verdict.scaling_failed.append(probe.name)
            verdict.failed[probe.name] = 1.0
            continue
        result = _probe_verdict(evaluate, probe, f0, tol, rng, n_directions, n_samples, scale)
        verdict.kinks += result.n_kinks
        if not result.passed:
            verdict.failed[probe.name] = float(result.max_rel_error)
    if descendants:
        # the children's parameters together, through this call: one direction is enough
        # to see a wiring fault (children that pass alone but not together)
        _check_descendants(work, call, descendants, cotangents, evaluate, f0, tol, rng,
                           counter, verdict, n_directions, scale)
    return verdict


def _terms_size(outputs, cotangents):
    """||output * cotangent||_2: how big the rounding error of <output, cotangent> can be."""
    return float(np.sqrt(sum(np.sum((np.asarray(o, dtype=np.float64) * c) ** 2)
                             for o, c in zip(outputs, cotangents))))


def _descendant_parameters(work, module):
    own = {id(p) for _, p in work.own_parameters(module)}
    return [(n, p) for n, p in work._params_of(module)
            if id(p) not in own and work.requires_grad(p)] if work.module_children(module) else []


def _check_descendants(work, call, descendants, cotangents, evaluate, f0, tol, rng, counter,
                       verdict, n_directions, scale):
    grads = _descendant_grads(work, call, descendants, cotangents)
    counter.n += 1
    values = [work.to_numpy(p) for _, p in descendants]      # one copy of each, not three
    sizes, shapes = [v.size for v in values], [v.shape for v in values]
    values = np.concatenate([v.astype(np.float64).reshape(-1) for v in values])
    grad = np.concatenate([grads[n].reshape(-1) for n, _ in descendants])

    def write(array):
        start = 0
        for (_, p), size, shape in zip(descendants, sizes, shapes):
            work.set_parameter(p, np.asarray(array).reshape(-1)[start:start + size].reshape(shape))
            start += size

    probe = Probe("parameters inside", values, grad, write)
    result = directional_check(evaluate, probe, f0, tol, rng, n_directions=1, scale=scale)
    if result.passed:
        return
    verdict.failed["parameters inside"] = float(result.max_rel_error)

    def name_them():
        """Which of the parameters fail, one by one (only run if this call is a culprit)."""
        for name, p in descendants:
            single = _tensor_probe(work, name, p, grads[name])
            one = directional_check(evaluate, single, f0, tol, rng, n_directions=n_directions,
                                    scale=scale)
            if not one.passed and not one.inconclusive:
                verdict.failed[name] = float(one.max_rel_error)
        if any(n in verdict.failed for n, _ in descendants):
            del verdict.failed["parameters inside"]

    verdict.inside = name_them


def _descendant_grads(work, call, descendants, cotangents):
    """Gradients of <call outputs, cotangents> w.r.t. parameters of the module's children."""
    _, _, grads = work.module_vjp(call, cotangents, params=descendants)
    return grads


def _array_probe(name, current, i, grad):
    def write(array):
        current[i] = np.array(array, dtype=np.float64)

    def write_element(flat, value):
        if not current[i].flags.writeable:
            current[i] = current[i].copy()
        current[i].reshape(-1)[flat] = value

    return Probe(name, current[i], grad, write, write_element)


def _tensor_probe(work, name, tensor, grad):
    return Probe(name, work.to_numpy(tensor), grad,
                 write=lambda array: work.set_parameter(tensor, array),
                 write_element=lambda i, v: work.set_element(tensor, i, v))


def _probe_verdict(evaluate, probe, f0, tol, rng, n_directions, n_samples, scale):
    """Directional first; a kink-bound direction falls back to spread elements."""
    result = directional_check(evaluate, probe, f0, tol, rng, n_directions=n_directions,
                               scale=scale)
    if not result.inconclusive:
        return result
    elements = element_check(evaluate, probe, spread_indices(probe.size, n_samples, rng), f0, tol,
                             scale=scale)
    elements.kinks.extend(result.kinks)
    return elements


# --- from failing calls to suspects --------------------------------------------------------

def _suspects(work, recording, verdicts, rng, counter, n_directions, n_samples):
    calls = recording.calls
    # a culprit fails itself while every call inside it passes (it was not skipped)
    culprits = [v for v in verdicts if v.failed and not v.inherited]
    suspects, notes = [], []
    seen = set()
    for v in culprits:
        call = calls[v.position]
        if v.inside is not None:
            v.inside()
        wrt, rel = max(v.failed.items(), key=lambda kv: kv[1])
        wrt_label = _wrt_label(wrt)
        base = _module_sentence(v, wrt, rel)
        op, evidence, op_rel = None, base, rel
        if work.supports_primitives:
            failures, checked = _check_primitives(work, call, calls, rng, counter, n_directions,
                                                  n_samples)
            if failures:
                for prim, prim_wrt, prim_rel, how in failures:
                    key = (v.name, v.is_loss, prim.op or prim.label)
                    if key in seen:
                        continue
                    seen.add(key)
                    param = prim.params.get(prim_wrt)
                    which = f"its input {prim_wrt}" + (f" (parameter {param})" if param else "")
                    op_name = prim.op if prim.op else None
                    label = prim.op or f"user Function {prim.label}"
                    sentence = (f"primitive '{label}' run alone on its recorded inputs computes a "
                                f"wrong gradient for {which} ({how}, relative error {prim_rel:.2g}); "
                                + base)
                    suspects.append(Suspect(module=v.name, op=op_name, wrt=wrt_label,
                                            rel_error=float(prim_rel), evidence=sentence,
                                            module_type=v.module_type,
                                            location="loss" if v.is_loss else "model",
                                            call_index=v.index))
                continue
            hooks = [] if v.is_loss else work.backward_hooks(call.module)
            if hooks:
                key = (v.name, v.is_loss, "hook")
                if key not in seen:
                    seen.add(key)
                    suspects.append(_hook_suspect(v, wrt_label, rel, hooks, base))
                continue
            ok, engine_sentence = work.engine_self_test()
            counter.n += 1
            evidence = (f"every one of the {checked} primitives this "
                        f"{'loss' if v.is_loss else 'module'} ran passes alone, but together "
                        f"they do not: the autograd engine combines their gradients wrongly "
                        f"({engine_sentence}); " + base)
            op = ENGINE
        key = (v.name, v.is_loss, op)
        if key in seen:
            continue
        seen.add(key)
        hooks = [] if v.is_loss or op is not None else work.backward_hooks(call.module)
        if hooks:
            suspects.append(_hook_suspect(v, wrt_label, rel, hooks, base))
            continue
        suspects.append(Suspect(module=v.name, op=op, wrt=wrt_label, rel_error=float(op_rel),
                                evidence=evidence, module_type=v.module_type,
                                location="loss" if v.is_loss else "model", call_index=v.index))
    # the most likely first: a named primitive, then the engine, then modules alone;
    # within each, the largest error first, then the order the calls ran in
    suspects.sort(key=lambda s: (0 if s.op not in (None, ENGINE) else (1 if s.op == ENGINE else 2),
                                 -min(s.rel_error, 1e6)))
    return suspects, notes


def _hook_suspect(v, wrt_label, rel, hooks, base):
    """A module whose gradient is changed by the user's own hook: the hook is named."""
    sentence = (f"it has {' and '.join(hooks)}, which changes the gradient that its backward "
                "computes - the model trains with these gradients, not with the true ones; " + base)
    return Suspect(module=v.name, op=None, wrt=wrt_label, rel_error=float(rel), evidence=sentence,
                   module_type=v.module_type, location="model", call_index=v.index)


def _wrt_label(wrt):
    if wrt.startswith("input"):
        return "input"
    return wrt


def _module_sentence(v, wrt, rel):
    who = "the loss function" if v.is_loss else \
        (f"module '{v.name}' ({v.module_type})" if v.name else f"the root module ({v.module_type})")
    what = f"its {wrt} gradient" if not wrt.startswith("input") else "its input gradient"
    if wrt in v.scaling_failed:
        return (f"{who} alone: {what} does not scale with the incoming gradient (a zero "
                "grad_output gives a nonzero gradient), so its backward ignores grad_output")
    children = " while every module inside it agrees" if v.is_container else ""
    return (f"{who} re-run alone on the inputs it really received: {what} disagrees with finite "
            f"differences (relative error {rel:.2g}){children}")


def _check_primitives(work, call, calls, rng, counter, n_directions, n_samples):
    """Check every primitive the culprit ran itself; if it ran none, those of its children.

    Returns ([(primitive, input position, rel error, how)], number checked)."""
    primitives = list(call.primitives)
    if not primitives:
        position = calls.index(call)
        primitives = [p for c in calls if _inside(c, position, calls) for p in c.primitives]
    failures, checked = [], 0
    for prim in primitives:
        float_inputs = [i for i, a in enumerate(prim.inputs) if np.asarray(a).dtype.kind == "f"]
        if not float_inputs or np.dtype(prim.out_dtype).kind != "f":
            continue
        checked += 1
        try:
            with np.errstate(all="ignore"):   # a perturbed input may leave the op's domain
                found = _check_primitive(work, prim, float_inputs, rng, counter, n_directions,
                                         n_samples)
        except Exception:   # a primitive that cannot be re-run alone: say nothing about it
            continue
        failures.extend(found)
    failures.sort(key=lambda f: -min(f[2], 1e6))
    return failures, checked


def _inside(c, position, calls):
    parent = c.parent
    while parent is not None:
        if parent == position:
            return True
        parent = calls[parent].parent
    return False


def _check_primitive(work, prim, float_inputs, rng, counter, n_directions, n_samples):
    tol = tolerance_for(np.promote_types(prim.out_dtype, np.float16) if np.dtype(prim.out_dtype).itemsize < 8
                        else np.float64)
    cotangent = rng.standard_normal(prim.out_shape)
    arrays = [np.array(a, copy=True) for a in prim.inputs]
    _, grads = work.primitive_vjp(prim, arrays, cotangent)
    _, grads0 = work.primitive_vjp(prim, arrays, cotangent * 0)
    _, grads2 = work.primitive_vjp(prim, arrays, cotangent * 2)
    counter.n += 3
    evaluate = counter.wrap(lambda: work.primitive_value(prim, arrays, cotangent))
    f0 = evaluate()
    scale = _terms_size([work.primitive_forward(prim, arrays)], [cotangent])
    found = []
    for i in float_inputs:
        g = grads[i] if grads[i] is not None else np.zeros(np.shape(arrays[i]))
        if np.shape(g) != np.shape(arrays[i]):
            found.append((prim, i, float("inf"), f"a gradient of shape {np.shape(g)} for an input "
                                                 f"of shape {np.shape(arrays[i])}"))
            continue
        g0 = grads0[i] if grads0[i] is not None else np.zeros_like(g)
        g2 = grads2[i] if grads2[i] is not None else np.zeros_like(g)
        ok, scaling = scales_with_cotangent(g, g0, g2, tol)
        if not ok:
            found.append((prim, i, 1.0, "it does not scale with the incoming gradient"))
            continue
        probe = _array_probe(f"input {i}", arrays, i, g)
        result = _probe_verdict(evaluate, probe, f0, tol, rng, n_directions, n_samples, scale)
        if not result.passed:
            how = "along a random direction" if result.method == "directional" else \
                f"worst at element {result.worst_index}"
            found.append((prim, i, float(result.max_rel_error), how))
    return found
