"""Rules naming the operation where a run's first NaN/Inf was born, and why.

NAN_LOSS and NAN_GRADIENTS say that a run went non-finite; the monitor's origin watch
(``monitor/nonfinite_origins.py``) says, on recorded steps, which call made the first
non-finite value, in the forward or in the backward pass. Two different traps:

- NAN_BORN_IN_FORWARD: a call turned finite inputs into NaN/Inf and the loss of that step is
  not finite: log of a probability that underflowed to 0 or saturated to 1, a division by a
  count or a norm that was 0, exp past float32's range (~88) in a softmax written by hand, a
  softmax over a row where every position was masked with -inf.
- NAN_BORN_IN_BACKWARD: the loss of that step was finite, its gradients are not, and the
  first call whose gradient went non-finite received a finite one. Either its derivative is
  infinite where its forward is finite (sqrt or a norm at exactly 0: two identical vectors;
  acos at +-1; x ** p with p < 1 at 0), or its forward made NaN/Inf that a torch.where or
  masked_fill then hid: the untaken branch gets a zero gradient, and 0 x inf is NaN.

Only births on judged records count (``record.judged``: the verdict must not depend on the
clock), on or before the run's first non-finite loss or gradients (after that every value
is NaN and nothing is born any more) - or after it on a step whose loss and forward were
still finite: the NaN update never reached the weights (a GradScaler skipping the step), so
the same call makes it again from finite numbers -, and not after the loss grew by
``BLOW_UP_GROWTH``
(a blow-up's NaN: an operation fed +inf from upstream is not where it began). Silent on a
run whose loss and gradients stay finite, whatever its forward computed on the way (a -inf
mask is no finding).
"""
import math

import numpy as np

from ..findings import Finding
from .graph import rule

BLOW_UP_GROWTH = 1e3   # [design] finite losses before the birth this many times their minimum:
                       # the run was blowing up (a learning rate, an initialisation), the
                       # NaN at the end is that blow-up's, and LR_TOO_HIGH /
                       # EXPLODING_GRADIENTS name it; an operation fed +inf from upstream
                       # is not where the trouble began

# why an operation makes a non-finite value out of finite inputs (forward), by family
FORWARD_WHY = (
    (("log", "log2", "log10", "log1p", "xlogy", "log_softmax", "logsumexp"),
     "log of 0 or of a negative number: a probability that underflowed to 0, or a sigmoid "
     "that rounded to exactly 1 (log(1 - p))",
     "Compute the loss from logits (F.binary_cross_entropy_with_logits, F.cross_entropy, "
     "log_softmax), or clamp the argument of log to [eps, 1 - eps]."),
    (("div", "divide", "true_divide", "__truediv__", "__rtruediv__", "reciprocal"),
     "a division by zero: a count (of positives, of tokens), a sum or a norm that was 0 in "
     "this batch",
     "Divide by count.clamp(min=1) (or norm.clamp_min(eps)), or skip the term when there is "
     "nothing to average."),
    (("exp", "exp2", "expm1", "pow", "__pow__", "__rpow__", "float_power"),
     "an overflow: exp of an input above ~88 (float32) or a power past float32's range, as in "
     "a softmax or a likelihood written by hand",
     "Subtract the row's maximum before exp (torch.softmax / torch.logsumexp do), or work in "
     "log space."),
    (("softmax",),
     "a softmax over a row where every position is -inf (all masked): 0 / 0",
     "Mask with a large finite negative number (torch.finfo(dtype).min) instead of -inf, or "
     "drop the rows that have nothing to attend to."),
    (("sqrt", "rsqrt", "acos", "arccos", "asin", "arcsin", "atanh", "arctanh", "acosh",
      "arccosh", "std", "var"),
     "an argument outside the operation's domain: sqrt of a negative number, acos/asin "
     "outside [-1, 1], the std of a single value",
     "Clamp the argument into the domain (x.clamp_min(0), cos.clamp(-1 + eps, 1 - eps)), or "
     "make sure there are at least two values."),
)
# why a finite forward gets a non-finite derivative (backward), by family
BACKWARD_WHY = (
    (("sqrt", "rsqrt", "norm", "vector_norm", "normalize", "pairwise_distance", "cdist"),
     "its derivative is infinite at 0: a distance or a norm of exactly 0 (two identical "
     "vectors, an all-zero row) gives 0 x inf = NaN",
     "Add an eps under the root (sqrt(d + 1e-9)), or use a squared distance."),
    (("acos", "arccos", "asin", "arcsin", "atanh", "arctanh"),
     "its derivative is infinite at the edge of its domain (acos at cosine +-1)",
     "Clamp the argument to [-1 + eps, 1 - eps] before the call."),
    (("pow", "__pow__", "__rpow__", "float_power"),
     "x ** p with p < 1 has an infinite derivative at x = 0",
     "Add an eps to the base, or clamp it away from 0."),
    (("log", "log2", "log10", "log1p", "xlogy", "div", "divide", "true_divide",
      "__truediv__", "__rtruediv__", "reciprocal"),
     "its derivative is infinite where its argument (or the denominator) is 0",
     "Keep the argument away from 0 (clamp_min(eps))."),
)
HIDDEN_WHY = ("its forward made NaN/Inf that a torch.where, masked_fill or indexing then "
              "hid from the loss: the untaken branch still gets a zero gradient, and 0 x "
              "its infinite derivative is NaN")
HIDDEN_FIX = ("Make the argument safe before the call, not after: torch.where(ok, x, 1).log() "
              "(a where inside as well as outside), or clamp it; torch.where alone does not "
              "stop the gradient of the branch it does not take.")
GENERIC_WHY = "it turned finite numbers into NaN/Inf"
GENERIC_FIX = "Keep the operation's argument inside its domain (clamp, eps)."


def _explain(table, operation):
    for names, why, fix in table:
        if operation in names:
            return why, fix
    return GENERIC_WHY, GENERIC_FIX


def _first_nonfinite_step(ctx):
    """The first step whose loss or recorded gradients were not finite (None: none)."""
    steps = [] if ctx.first_nan_step is None else [ctx.first_nan_step]
    steps += [r.step for r, ok in zip(ctx.all_records, ctx.grads_finite) if not ok][:1]
    return min(steps) if steps else None


MODEL_FORWARD = "inside the model's forward"   # the source the monitor gives a call it
                                               # read from the forward's graph


def _place(module, source):
    """Where the call was made: in a module of the model, inside the model's forward (read
    from its graph: no module, no line), or outside the model's modules (the loss)."""
    if source == MODEL_FORWARD:
        return MODEL_FORWARD
    where = f"in module {module}" if module else "outside the model's modules (in the loss)"
    return where + (f", at {source}" if source else "")


SYMPTOMS = frozenset({"NAN_LOSS", "NAN_GRADIENTS", "EXPLODING_GRADIENTS", "LOSS_DIVERGING"})


def _blew_up_before(ctx, step):
    """Whether the finite losses before ``step`` grew BLOW_UP_GROWTH times their minimum."""
    before = ctx.losses[(ctx.loss_steps < step) & np.isfinite(ctx.losses)]
    return before.size >= 2 and before[-1] > BLOW_UP_GROWTH * max(float(np.min(before)), 1e-12)


def _weights_survived(ctx, symptom):
    """Steps after ``symptom`` whose loss and forward were still finite although gradients
    had gone NaN: the non-finite update never reached the weights (a GradScaler skipping the
    step, a skip-on-NaN guard), so a NaN gradient born again there is born from finite
    numbers, by the same call (real-bug batch 61: a clamp's 1 - 1e-6 rounded to 1.0 in
    float16, its NaN skipped by the scaler on every step)."""
    losses = ctx.loss_by_step
    return {r.step for r in ctx.all_records if r.step > symptom and
            math.isfinite(losses.get(r.step, math.nan)) and
            all(math.isfinite(st.get(stat, 0.0)) for st in [r.inputs or {}] for stat in
                ("mean", "std")) and
            all(math.isfinite(st.get("mean", 0.0)) for st in r.activations.values())}


def _where(module, source):
    return module or ("model" if source == MODEL_FORWARD else "loss")


@rule(produces={"NAN_BORN_IN_FORWARD", "NAN_BORN_IN_BACKWARD"},
      explains={"NAN_BORN_IN_FORWARD": SYMPTOMS, "NAN_BORN_IN_BACKWARD": SYMPTOMS})
def nonfinite_origin(ctx):
    symptom = _first_nonfinite_step(ctx)
    births = getattr(ctx.run.observed, "nonfinite_births", None) or []
    if symptom is None or not births:
        return None
    judged = {r.step for r in ctx.all_records if getattr(r, "judged", True)}
    survived = _weights_survived(ctx, symptom)
    births = [b for b in births if b[0] in judged and (b[0] <= symptom or b[0] in survived)]
    if not births:
        return None
    for step in sorted({b[0] for b in births}):
        if _blew_up_before(ctx, step):
            return None
        loss = ctx.loss_by_step.get(step)
        # a NaN loss was made in the forward; a finite loss with NaN gradients in the backward
        phase = "backward" if loss is not None and math.isfinite(loss) else "forward"
        found = [b for b in births if b[0] == step and b[1] == phase]
        if found:
            return _finding(ctx, step, loss, symptom, *found[0][1:])
    return None


def _finding(ctx, step, loss, symptom, phase, operation, module, source, hidden):
    place = _place(module, source)
    evidence = {"step": step, "operation": operation, "module": module, "source": source,
                "loss_at_step": loss, "first_nonfinite_step": symptom}
    if phase == "forward":
        why, fix = _explain(FORWARD_WHY, operation)
        return Finding(
            code="NAN_BORN_IN_FORWARD", severity="error", where=_where(module, source), step=step,
            message=f"The run's first NaN/Inf was made in the forward pass at step {step}: "
                    f"{operation} {place}, turned finite inputs into NaN/Inf ({why}). "
                    "The NaN loss and gradients that follow are its consequence.",
            evidence=evidence, fix=fix)
    why, fix = _explain(BACKWARD_WHY, operation) if not hidden else (HIDDEN_WHY, HIDDEN_FIX)
    evidence["forward_output_nonfinite"] = bool(hidden)
    return Finding(
        code="NAN_BORN_IN_BACKWARD", severity="error", where=_where(module, source), step=step,
        message=f"At step {step} the loss was finite but its gradients were not: the first "
                f"NaN/Inf gradient was made by the backward of {operation} {place}, which "
                f"received a finite gradient and passed on a non-finite one ({why}). One "
                "such update turns the weights into NaN.",
        evidence=evidence, fix=fix)
