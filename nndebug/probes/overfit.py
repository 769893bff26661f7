"""Overfit one batch: the first test to run on any new model.

A network with enough parameters must be able to memorise a single small batch: drive
its loss to (almost) zero and classify every sample of it correctly. If it cannot,
no amount of data or training time will help - something is broken in the model, the
loss, the gradients or the wiring between them, and finding it on one batch takes
seconds instead of a training run.

The test is made as easy as possible so that a failure means a bug, not a hard problem:
the same batch every step, Adam (forgiving about gradient scale), no weight decay, and
dropout switched off. Batch-norm stays in training mode: it normalises with the batch's
own statistics, which is how the model trains; putting it in eval mode would make it use
running averages that lag behind the weights (and a model that only overfits with
batch-norm in eval mode would hide a real problem). Everything runs on a private copy;
the user's model, RNG and modes are never changed.
"""
import math
from dataclasses import dataclass, field

import numpy as np

from .. import validation
from ..adapters import adapt
from ..findings import Finding, sort_findings
from ._training import (disable_dropout, first_dim, forward_output, make_optimizer,
                        scalar_loss_value, take_samples, train_step, trainable_parameters,
                        no_grad)
from .progress import Progress

LEARNING_RATES = (3e-3, 3e-4, 1e-2)
"""Adam learning rates tried in turn: 3e-3 memorises small batches fast for MLPs and CNNs alike;
if that fails, 3e-4 is tried when the loss was unstable (NaN, or it rose again), 1e-2 when it
was merely slow. A model passes if any of them works."""
LOSS_FRACTION = 0.02
"""Passed when the final loss is below 2% of the initial loss ("near zero", relative to where
it started: a memorised batch reaches well under 1%; a broken model stays far above)."""
CLASSIFIED_FRACTION = 0.05
"""For a classifier that already labels every sample of the batch correctly, 5% of the initial
loss is enough: the batch is memorised, and the rest of the fall only grows the logits (a tiny
healthy 6-8-3 MLP sits at 100% accuracy with its loss at 2.3% of the start after 200 steps).
Not more: a backward bug that slows learning (tanh's derivative not squared) stays at ~10%."""
DIAGNOSIS_SAMPLES = 8
"""Samples of the batch used for the gradient check on failure (it costs forward passes)."""


@dataclass
class OverfitResult:
    """The outcome of ``overfit_one_batch``; ``findings`` explain a failure."""
    passed: bool
    losses: list
    final_loss: float
    initial_loss: float
    accuracy: "float | None"
    lr: float
    steps: int
    reason: str
    attempts: list = field(default_factory=list)    # [{"lr", "final_loss", "accuracy"}]
    findings: list = field(default_factory=list)
    notes: list = field(default_factory=list)

    def _repr_html_(self):
        """Jupyter shows the verdict, the findings and the plot inline."""
        from ..report.html import result_html
        return result_html(self)

    def __str__(self):
        acc = "" if self.accuracy is None else f", batch accuracy {self.accuracy:.0%}"
        head = (f"overfit one batch: {'PASSED' if self.passed else 'FAILED'} - loss "
                f"{self.initial_loss:.4g} -> {self.final_loss:.4g} in {self.steps} Adam steps "
                f"(lr {self.lr:g}){acc}")
        lines = [head, f"  {self.reason}"]
        lines += [f"  {f}" for f in self.findings]
        lines += [f"  note: {n}" for n in self.notes]
        return "\n".join(lines)


def overfit_one_batch(model, inputs, targets, loss_fn, *, steps=200, lr=None, batch_size=None,
                      loss_floor=0.0, diagnose=True, seed=0, progress=False):
    """Train a private copy on this one batch and report whether it memorises it.

    Passed means: final loss below 2% of the initial loss (measured above ``loss_floor``,
    for losses whose minimum is not 0, e.g. label smoothing) and, for classification
    (integer class targets, or one-hot/binary targets), 100% accuracy on the batch.

    ``lr``: one Adam learning rate to use instead of the built-in schedule of tries.
    ``batch_size``: use only the first N samples (small batches memorise fastest).
    On failure (and ``diagnose=True``) the run is repeated under ``nd.watch`` and the
    gradients are checked with ``nd.gradcheck`` on a few samples; their findings are
    attached to ``res.findings`` together with an ``OVERFIT_FAILED`` finding.
    """
    adapter = adapt(model)
    steps = validation.integer(steps, "steps")
    lr = None if lr is None else validation.positive_number(lr, "lr")
    seed = validation.seed(seed)
    validation.problem(adapter, inputs, targets, loss_fn)
    if batch_size is not None:
        inputs, targets = _head(inputs, batch_size), _head(targets, batch_size)
    n_inputs, n_targets = first_dim(inputs), first_dim(targets)
    if n_inputs != n_targets:
        raise ValueError(f"inputs hold {n_inputs} samples but targets hold {n_targets}; give "
                         "one target per sample")
    if not trainable_parameters(adapter):
        raise ValueError("the model has no trainable parameters (all requires_grad=False): "
                         "there is nothing to fit")

    lrs = (lr,) if lr is not None else LEARNING_RATES
    attempts, notes = [], []
    with adapter.preserved(), adapter.forked_rng(seed) as replay:
        template = adapter.private_copy(dtype=adapter.float_dtype())
        template.model.train()                  # the configuration of every forward below:
        switched = disable_dropout(template)    # training mode, except dropout (copies keep it)
        x, y = template.prepare(inputs), template.prepare(targets)
        with validation.explain_forward_error(adapter, inputs, targets):   # bad data: one line
            scalar_loss_value(template, loss_fn(forward_output(template, x), y))
        kind = _task_kind(template, x, y, loss_fn)
        rate = lrs[0]
        while True:
            replay()
            run = _attempt(template, x, y, loss_fn, rate, steps, kind, loss_floor, progress)
            attempts.append(run)
            if run["passed"] or lr is not None or len(attempts) >= 2:
                break
            rate = LEARNING_RATES[1] if run["unstable"] else LEARNING_RATES[2]
        best = next((a for a in attempts if a["passed"]), min(attempts, key=_badness))
        if switched:
            notes.append("dropout layers were switched off for the test: " + ", ".join(switched))
        findings = []
        if not best["passed"]:
            findings.append(_failure_finding(best, attempts, steps))
            if diagnose:
                replay()
                findings += _monitor_findings(template, x, y, loss_fn, best["lr"], steps, notes)
    if not best["passed"] and diagnose:
        findings += _gradient_findings(adapter, inputs, targets, loss_fn, seed, notes)
        findings = _dedupe(findings)
    return OverfitResult(
        passed=best["passed"], losses=best["losses"], final_loss=best["final_loss"],
        initial_loss=best["initial_loss"], accuracy=best["accuracy"], lr=best["lr"], steps=steps,
        reason=best["reason"], findings=sort_findings(findings), notes=notes,
        attempts=[{"lr": a["lr"], "final_loss": a["final_loss"], "accuracy": a["accuracy"]}
                  for a in attempts])


def _head(value, n):
    return take_samples(value, 0, validation.integer(n, "batch_size"))


def _badness(attempt):
    final = attempt["final_loss"]
    return (not math.isfinite(final), final / attempt["initial_loss"] if attempt["initial_loss"] else final)


def _task_kind(adapter, x, y, loss_fn):
    """'classes' (integer targets, argmax of dim 1), 'onehot', 'binary-logits',
    'binary-probs' or None (no accuracy defined: regression)."""
    targets = adapter.to_numpy(y) if not isinstance(y, (tuple, list, dict)) else None
    if targets is None:
        return None
    output = forward_output(adapter, x)
    if isinstance(output, (tuple, list, dict)):
        return None
    out = adapter.to_numpy(output)
    loss_name = type(loss_fn).__name__
    if targets.dtype.kind in "iu" and out.ndim >= 2 and out.shape[0] == targets.shape[0] \
            and targets.shape == out.shape[:1] + out.shape[2:]:
        return "classes"
    if targets.dtype.kind == "f" and targets.shape == out.shape and np.all((targets == 0) | (targets == 1)):
        if "BCEWithLogits" in loss_name:
            return "binary-logits"
        if loss_name == "BCELoss":
            return "binary-probs"
        if out.ndim == 2 and out.shape[1] > 1 and np.all(targets.sum(axis=1) == 1):
            return "onehot"
    return None


def _accuracy(adapter, output, y, kind):
    if kind is None:
        return None
    out, t = adapter.to_numpy(output), adapter.to_numpy(y)
    if kind == "classes":
        return float(np.mean(np.argmax(out, axis=1) == t))
    if kind == "onehot":
        return float(np.mean(np.argmax(out, axis=1) == np.argmax(t, axis=1)))
    threshold = 0.0 if kind == "binary-logits" else 0.5
    return float(np.mean((out > threshold) == (t > 0.5)))


def _attempt(template, x, y, loss_fn, lr, steps, kind, loss_floor, progress):
    work = template.private_copy(dtype=template.float_dtype())   # modes as the template's
    optimizer = make_optimizer(work, "Adam", trainable_parameters(work), lr=lr)
    losses = []
    with Progress(steps, f"overfit (lr {lr:g})", enabled=progress) as bar:
        for step in range(steps):
            loss = train_step(work, optimizer, x, y, loss_fn)
            losses.append(loss)
            bar.update(step + 1, f"loss {loss:.4g}")
            if not math.isfinite(loss):
                break
    with no_grad(work):
        output = work.call_model(work.model, x)
        final = scalar_loss_value(work, loss_fn(output, y))
    accuracy = _accuracy(work, output, y, kind)
    initial = losses[0]
    excess = lambda v: v - loss_floor
    fraction = CLASSIFIED_FRACTION if accuracy == 1.0 else LOSS_FRACTION
    low_enough = math.isfinite(final) and excess(final) <= fraction * max(excess(initial), 0.0)
    passed = low_enough and (accuracy is None or accuracy == 1.0)
    finite = [v for v in losses if math.isfinite(v)]
    unstable = not math.isfinite(final) or (finite and final > 1.5 * min(finite) + 1e-12 and
                                            final > LOSS_FRACTION * initial)
    if passed:
        reason = f"loss fell to {final / initial:.2%} of its start" + \
            ("" if accuracy is None else " and every sample is classified correctly")
    elif not math.isfinite(initial):
        reason = "the loss is NaN/Inf from the very first step"
    elif not math.isfinite(final):
        reason = f"the loss became NaN/Inf after {len(finite)} steps"
    elif not low_enough:
        reason = f"the loss only fell to {final / initial:.1%} of its start (needs < " \
                 f"{fraction:.0%})"
        if accuracy is not None:
            reason += f"; batch accuracy {accuracy:.0%}"
    else:
        reason = f"the loss is low but only {accuracy:.0%} of the batch is classified correctly"
    return {"passed": passed, "losses": losses, "final_loss": final, "initial_loss": initial,
            "accuracy": accuracy, "lr": lr, "unstable": bool(unstable), "reason": reason}


def _failure_finding(best, attempts, steps):
    return Finding(
        code="OVERFIT_FAILED", severity="error", where="",
        message=f"The model cannot memorise one batch: {best['reason']}, with Adam at "
                + ", ".join(f"lr {a['lr']:g}" for a in attempts) + ".",
        evidence={"initial_loss": best["initial_loss"], "final_loss": best["final_loss"],
                  "accuracy": best["accuracy"], "steps": steps,
                  "attempts": [{"lr": a["lr"], "final_loss": a["final_loss"], "accuracy": a["accuracy"]}
                               for a in attempts]},
        fix="read the other findings first; then check the loss gets raw logits, the targets "
            "match the outputs, and every layer receives a gradient")


# --- diagnosis ------------------------------------------------------------------------------

IGNORED_MONITOR_CODES = ("TRAINING_IN_EVAL_MODE",)
"""The probe itself switches dropout off while training; the monitor would rightly flag that."""


def _monitor_findings(template, x, y, loss_fn, lr, steps, notes):
    try:
        from ..monitor import watch
    except ImportError as error:  # the monitor is optional for this probe
        notes.append(f"monitor unavailable ({error}); no training findings attached")
        return []
    work = template.private_copy(dtype=template.float_dtype())
    optimizer = make_optimizer(work, "Adam", trainable_parameters(work), lr=lr)
    every = max(1, steps // 50)
    with watch(work.model, optimizer, every=every, overhead=None) as monitor:
        for _ in range(steps):
            loss = train_step(work, optimizer, x, y, loss_fn)
            monitor.step(loss)
            if not math.isfinite(loss):
                break
        found = monitor.findings()
    return [f for f in found if f.severity != "info" and f.code not in IGNORED_MONITOR_CODES]


def _gradient_findings(adapter, inputs, targets, loss_fn, seed, notes):
    try:
        from ..gradcheck import gradcheck
    except ImportError as error:
        notes.append(f"gradcheck unavailable ({error})")
        return []
    small_x = _head(inputs, DIAGNOSIS_SAMPLES)
    small_y = _head(targets, DIAGNOSIS_SAMPLES)
    try:
        report = gradcheck(adapter.model, small_x, small_y, loss_fn, seed=seed)
    except (ValueError, TypeError, FloatingPointError) as error:
        notes.append(f"gradient check skipped: {error}")
        return []
    findings = [f for f in report.findings if f.severity != "info"]
    if report.passed:
        notes.append(f"gradients agree with finite differences (gradcheck on {DIAGNOSIS_SAMPLES} "
                     "samples), so the backward pass is not the problem")
        return findings
    try:
        from ..locate import locate
        where = locate(adapter.model, small_x, small_y, loss_fn, seed=seed)
    except Exception as error:  # locating is a bonus; the mismatch itself is already reported
        notes.append(f"could not locate the faulty backward: {error}")
        return findings
    if where.suspects:
        top = where.suspects[0]
        findings.insert(0, Finding(
            code="BACKWARD_MISMATCH", severity="error", where=top.module,
            message=f"the wrong gradient starts in module '{top.module}'"
                    + (f" (primitive '{top.op}')" if top.op else "")
                    + f", with respect to its {top.wrt}: {top.evidence}",
            evidence={"module": top.module, "op": top.op, "wrt": top.wrt, "rel_error": top.rel_error},
            fix="fix that backward (compare it with the derivative of its forward), then rerun"))
    return findings


def _dedupe(findings):
    seen, out = set(), []
    for f in findings:
        key = (f.code, f.where)
        if key not in seen:
            seen.add(key)
            out.append(f)
    return out
