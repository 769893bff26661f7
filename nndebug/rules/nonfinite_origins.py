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

A birth on a step that was not recorded (a batch with no positive, met at step 7 between
the records of steps 4 and 8) leaves no call to name. It is still told apart from a
blow-up when the loss itself went from a steady finite value straight to +-Inf: an
infinite loss comes from finite weights (weights already NaN give NaN, not Inf), and a loss
no higher than ``SUDDEN_RISE`` times its recent median before it rules out a divergence
(which climbs for several steps first). Then NAN_BORN_IN_FORWARD is named for that step
without the operation, with the ways to find it. A NaN loss (not Inf) on such a step stays
unexplained: the NaN may equally be a backward's, born the step before, whose update
reached the weights.

Unless the watched steps saw the structure that makes it (``observed.fragile_operations``,
real-bug batch 92): a division by a bare std or variance (0 / 0 on a batch of equal
values: NAN_BORN_IN_FORWARD at the first NaN step), a fractional power of a probability or
its complement (an infinite derivative once it rounds to 0: NAN_BORN_IN_BACKWARD at the
step before), acos(tanh) and the same traps on a cosine of unit vectors (acos(cos),
sqrt(1 - cos ** 2): an angular-margin head, real-bug batch 350), a log of a sum of exps (forward for an Inf loss, backward for a NaN one), an
unbiased std/var over the batch axis of an activation (NaN on a batch of one sample:
forward; real-bug batch 267). It
is named for a NaN after finite losses that were not blowing up (signed losses judged by
their typical size, not their minimum), with no NaN in the inputs.
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
UNGUARDED_FINITE_STEPS = 8   # [design] finite losses before a NaN that no record watched, for
                             # an unguarded log to be named its origin: a model that trained
                             # a while and grew confident (a NaN in the first steps is the
                             # recorded births' to name: those steps are watched)

SUDDEN_RISE = 10.0     # [design] the last finite loss before an unrecorded Inf loss at most
                       # this many times the median of the losses before it: no climb (a
                       # divided-by-zero-positives batch: 2.8 after a median of 5.9; a
                       # learning rate's blow-up climbs 1e3x and more first)
SUDDEN_MIN_LOSSES = 3  # [design] finite losses before it, to have a median at all

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


def _judged_steps(ctx):
    """The steps of the judged records (``record.judged``): births and fragile notes count
    only there, so that a verdict never depends on which extra records the clock allowed."""
    return {r.step for r in ctx.all_records if getattr(r, "judged", True)}


def _where(module, source):
    return module or ("model" if source == MODEL_FORWARD else "loss")


@rule(produces={"NAN_BORN_IN_FORWARD", "NAN_BORN_IN_BACKWARD"}, reads={"NAN_IN_INPUTS"},
      explains={"NAN_BORN_IN_FORWARD": SYMPTOMS, "NAN_BORN_IN_BACKWARD": SYMPTOMS})
def nonfinite_origin(ctx):
    found = _recorded_birth(ctx)
    if found is None:
        found = _unguarded_log(ctx)
    if found is None:
        found = _fragile_operation(ctx)
    if found is None:
        symptom = _first_nonfinite_step(ctx)
        found = None if symptom is None else _unrecorded_forward_birth(ctx, symptom)
    return found


def _recorded_birth(ctx):
    symptom = _first_nonfinite_step(ctx)
    births = getattr(ctx.run.observed, "nonfinite_births", None) or []
    if symptom is None or not births:
        return None
    judged = _judged_steps(ctx)
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


def _unguarded_log(ctx):
    """No record watched the step of the first NaN, but the loss takes the log of a softmax
    or sigmoid probability that nothing keeps from 0 in its dtype (``observed.unguarded_logs``,
    read on the first recorded steps; real-bug batch 75): a NaN that is the loss's own, on a
    step whose finite predecessors were not blowing up, was born there. A NaN in the inputs,
    gradients gone NaN before the loss, or a blow-up first are other stories."""
    logs = getattr(ctx.run.observed, "unguarded_logs", None) or []
    symptom = _first_nonfinite_step(ctx)
    if not logs or symptom is None or ctx.first_nan_step is None or \
            ctx.first_nan_step > symptom or "NAN_IN_INPUTS" in ctx.found or \
            _blew_up_before(ctx, symptom):
        return None
    before = ctx.losses[(ctx.loss_steps < symptom) & np.isfinite(ctx.losses)]
    if before.size < UNGUARDED_FINITE_STEPS:
        return None
    step, described, source = logs[0]
    return Finding(
        code="NAN_BORN_IN_FORWARD", severity="error", where="loss", step=symptom,
        message=f"The run's loss turned NaN at step {symptom}, after {before.size} finite "
                f"steps that were not blowing up. No record watched that step, but the loss "
                f"takes {described} at {source or 'an unknown line'}, and nothing keeps that "
                "probability from rounding to exactly 0 in float32 (a softmax gap past ~104, "
                "a sigmoid past ~17 for 1 - p; a clamp's bound like 1 - 1e-8 is 1.0 in "
                "float32): the log is -inf there, and 0 x -inf is NaN. The NaN loss and "
                "gradients that follow are its consequence.",
        evidence={"step": symptom, "operation": described, "source": source,
                  "first_nonfinite_step": symptom, "seen_on_step": step,
                  "finite_steps_before": int(before.size), "inferred": True},
        fix="Compute the loss from logits (F.cross_entropy, log_softmax, F.logsigmoid, "
            "F.binary_cross_entropy_with_logits), or put an eps inside the log "
            "(log(p + eps), log(1 - p + eps)) with eps above the dtype's spacing near 1.")


# why an operation the origin watch read on its steps makes the NaN later, and the first fix,
# by the start of its description (monitor/fragile_operations.py, real-bug batch 92)
FRAGILE_WHY = (
    ("x / sum(", "divides by {what}, a count of the batch's events, positives or kept "
                 "entries with nothing added to it or clamped on it: a batch that holds none "
                 "of them makes it exactly 0, and 0 / 0 is NaN",
     "Divide by count.clamp(min=1) (or count + eps), or skip the term on a batch that has "
     "nothing to count."),
    ("x / ", "divides by {what} with nothing added to it or clamped on it: when every value "
             "it is taken over is equal - a batch of equal rewards or advantages, a constant "
             "column, a sample with one value - it is exactly 0, and 0 / 0 is NaN",
     "Divide by std + eps (1e-8), or std.clamp_min(eps); or skip the standardisation of a "
     "batch whose values are all equal."),
    ("log(", "takes {what} of a mixture or likelihood written by hand: when every exp of a "
             "row underflows to 0 (its argument below about -104 in float32: a sample far "
             "from every sharp component) the log is -inf and the loss Inf, and a sum just "
             "above 0 makes the log's derivative 1 / sum overflow (0 x inf is NaN in the "
             "exps' backward)",
     "Work in log space: torch.logsumexp(log_weights + log_terms, dim) instead of "
     "log(sum(weights * exp(log_terms)))."),
    ("std over the batch axis", "computes {what} with the default (unbiased) correction, "
     "which divides by n - 1: a batch of ONE sample - the last, partial batch of an epoch "
     "whose size leaves one over - makes it 0 / 0 = NaN in the forward (real-bug batch 267)",
     "Drop the last, partial batch (DataLoader(..., drop_last=True)) or skip batches of one "
     "sample; or take the spread with correction=0 (unbiased=False), 0 for one sample."),
    ("var over the batch axis", "computes {what} with the default (unbiased) correction, "
     "which divides by n - 1: a batch of ONE sample - the last, partial batch of an epoch "
     "whose size leaves one over - makes it 0 / 0 = NaN in the forward (real-bug batch 267)",
     "Drop the last, partial batch (DataLoader(..., drop_last=True)) or skip batches of one "
     "sample; or take the spread with correction=0 (unbiased=False), 0 for one sample."),
    ("acos(cosine)", "computes {what}: a cosine of unit vectors rounds to exactly +-1 once a "
                     "feature lines up with a class weight (or two embeddings coincide), "
                     "where acos is finite but its derivative -1 / sqrt(1 - c^2) is "
                     "infinite, and 0 x inf is NaN in the backward (real-bug batch 350)",
     "Clamp the cosine strictly inside (-1, 1) before the call: "
     "cos.clamp(-1 + 1e-7, 1 - 1e-7) in float32."),
    ("(1 - cosine ** 2)", "computes {what}, the sine of an angle from its cosine (as "
                          "angular-margin heads such as ArcFace do): the cosine of unit "
                          "vectors rounds to exactly +-1 once a feature lines up with its "
                          "class weight, the square root's derivative is infinite at 0, and "
                          "0 x inf is NaN in the backward (a clamp(0, 1) on the difference "
                          "does not help: its zero gradient times inf is NaN; real-bug "
                          "batch 350)",
     "Clamp the cosine strictly inside (-1, 1) before squaring it: "
     "cos.clamp(-1 + 1e-7, 1 - 1e-7) in float32 (or add an eps inside the square root)."),
    ("asin(cosine)", "computes {what}: a cosine of unit vectors rounds to exactly +-1, where "
                     "asin is finite but its derivative 1 / sqrt(1 - c^2) is infinite, and "
                     "0 x inf is NaN in the backward (real-bug batch 350)",
     "Clamp the cosine strictly inside (-1, 1) before the call: "
     "cos.clamp(-1 + 1e-7, 1 - 1e-7) in float32."),
    ("acos(", "computes {what}: tanh rounds to exactly +-1 in float32 once its input passes "
              "about 9, where acos is finite but its derivative "
              "-1 / sqrt(1 - t^2) is infinite, and 0 x inf is NaN in the backward",
     "Keep the argument strictly inside (-1, 1): acos(tanh(x) * (1 - 1e-6)), or clamp it "
     "to [-1 + 1e-6, 1 - 1e-6] (float32) before the call."),
    ("asin(", "computes {what}: tanh rounds to exactly +-1 in float32 once its input passes "
              "about 9, where asin is finite but its derivative "
              "1 / sqrt(1 - t^2) is infinite, and 0 x inf is NaN in the backward",
     "Keep the argument strictly inside (-1, 1): asin(tanh(x) * (1 - 1e-6)), or clamp it "
     "to [-1 + 1e-6, 1 - 1e-6] (float32) before the call."),
    ("", "computes {what}, a fractional power of a probability: its forward is finite when the probability rounds "
         "to exactly 1 (or 0) in float32 - a logit gap past about 17 -, but x ** gamma with "
         "0 < gamma < 1 has an infinite derivative at 0, and 0 x inf is NaN in the backward",
     "Clamp the base away from 0 before the power ((1 - p).clamp_min(1e-6) ** gamma), or "
     "use a gamma of 1 or more."),
)
FRAGILE_STEADY_RISE = SUDDEN_RISE   # [design] the last finite loss before the NaN at most
                                    # this many times the typical |loss| before it (the
                                    # median, or the spread of a loss that crosses 0, as a
                                    # policy gradient's does): no climb, no blow-up


def _steady_before(before):
    """Whether the finite losses before a NaN show no blow-up: positive losses that did not
    grow ``BLOW_UP_GROWTH`` times their minimum, and a last value within
    ``FRAGILE_STEADY_RISE`` times the typical size of the ones before it (signed losses
    included: a policy gradient's crosses 0, so its minimum says nothing)."""
    if before.size == 0:
        return True
    if before.min() > 0 and before.size >= 2 and \
            before[-1] > BLOW_UP_GROWTH * max(float(before.min()), 1e-12):
        return False
    if before.size < 2:
        return True
    earlier = before[:-1]          # the typical size of the losses before the last one
    typical = max(float(np.median(np.abs(earlier))), float(np.std(earlier)), 1e-12)
    return abs(float(before[-1])) <= FRAGILE_STEADY_RISE * typical


def _fragile_operation(ctx):
    """No record watched the step of the first NaN, but on the watched steps the training
    step made an operation whose NaN waits for a batch or for the model's confidence
    (``observed.fragile_operations``: a division by a bare std, a fractional power of a
    probability, a log of summed exps; real-bug batch 92). Named for a NaN that is the
    loss's own (no NaN in the inputs, the loss first), after finite steps that were not
    blowing up. Forward-born ones (0 / 0; an Inf loss from log(0)) at the first NaN step;
    backward-born ones (a power's or the log's infinite derivative, a finite loss whose
    update made the weights NaN) at the step before it."""
    judged = _judged_steps(ctx)
    notes = [note for note in getattr(ctx.run.observed, "fragile_operations", None) or []
             if note[0] in judged]          # seen on a judged record: not the clock's
    symptom = _first_nonfinite_step(ctx)
    if not notes or symptom is None or ctx.first_nan_step is None or \
            "NAN_IN_INPUTS" in ctx.found:
        return None
    # a recorded step's gradients went non-finite under its finite loss: that step's own
    # backward made the NaN (real-bug batch 340: acos(tanh) on step 8, recorded but not
    # measured by the origin watch); only a backward-born note can explain it
    gradients_first = ctx.first_nan_step > symptom
    before = ctx.losses[(ctx.loss_steps < symptom) & np.isfinite(ctx.losses)]
    if not _steady_before(before):
        return None
    seen, phase, described, source = notes[0]
    loss = ctx.loss_by_step.get(symptom)
    if described.startswith("log("):           # log(0) itself: an Inf loss; a NaN one: the
        phase = "forward" if loss is not None and math.isinf(loss) else "backward"   # 1 / sum
    if gradients_first and phase != "backward":
        return None
    if phase == "backward" and before.size == 0 and not gradients_first:
        return None                            # a backward's NaN shows on a later loss
    why, fix = next((w, f) for start, w, f in FRAGILE_WHY if described.startswith(start))
    what = described[4:] if described.startswith("x / ") else described
    step = symptom if phase == "forward" or gradients_first else symptom - 1
    evidence = {"step": step, "operation": described, "source": source, "phase": phase,
                "first_nonfinite_step": symptom, "seen_on_step": seen,
                "finite_steps_before": int(before.size), "inferred": True}
    where = f"at {source}" if source else "in the training step"
    seen_what = why.format(what=what)
    if phase == "forward":
        return Finding(
            code="NAN_BORN_IN_FORWARD", severity="error", where="loss", step=symptom,
            message=f"The run's loss turned NaN at step {symptom}, after {before.size} finite "
                    f"steps that were not blowing up. No record watched that step, but the "
                    f"step {where} {seen_what}. The NaN loss and gradients that follow are "
                    "its consequence.",
            evidence=evidence, fix=fix)
    if gradients_first:
        return Finding(
            code="NAN_BORN_IN_BACKWARD", severity="error", where="loss", step=step,
            message=f"At step {step} the loss was finite but the gradients were not, after "
                    f"{before.size} finite steps that were not blowing up: that step's "
                    f"backward made the NaN, and its update turns the weights into NaN. The "
                    f"origin watch did not measure that step, but the loss {where} "
                    f"{seen_what}.",
            evidence=evidence, fix=fix)
    return Finding(
        code="NAN_BORN_IN_BACKWARD", severity="error", where="loss", step=step,
        message=f"The run's loss turned NaN at step {symptom}, after {before.size} finite "
                f"steps that were not blowing up: the update of step {step} carried NaN "
                f"gradients from a finite loss. No record watched that step, but the loss "
                f"{where} {seen_what}. One such update turns the weights into NaN.",
        evidence=evidence, fix=fix)


def _unrecorded_forward_birth(ctx, symptom):
    """NAN_BORN_IN_FORWARD without its operation: the loss jumped from a steady finite
    value to +-Inf on a step that was not recorded (module doc)."""
    recorded = {r.step for r in ctx.all_records}
    loss = ctx.loss_by_step.get(symptom)
    if symptom != ctx.first_nan_step or symptom in recorded or loss is None or \
            not math.isinf(loss) or "NAN_IN_INPUTS" in ctx.found:
        return None
    before = ctx.losses[(ctx.loss_steps < symptom) & np.isfinite(ctx.losses)]
    if before.size < SUDDEN_MIN_LOSSES:
        return None
    typical = float(np.median(before))
    if not before[-1] <= SUDDEN_RISE * max(typical, 1e-12):
        return None
    return Finding(
        code="NAN_BORN_IN_FORWARD", severity="error", where="loss", step=symptom,
        message=f"At step {symptom} the loss went from {before[-1]:.3g} (median so far "
                f"{typical:.3g}) straight to {loss}, with no climb before it: that step's "
                "forward made an Inf out of finite weights and inputs - a division by a count, "
                "a sum or a norm that was 0 in this batch, log of 0, exp past float32's range "
                "- and its update turned the weights into NaN. The step was not recorded in "
                "detail, so the operation is not known.",
        evidence={"step": symptom, "operation": None, "loss_at_step": loss,
                  "loss_before": float(before[-1]), "median_before": typical,
                  "recorded": False},
        fix="Guard the divisions and logs of the loss and the model (count.clamp(min=1), "
            "x.clamp_min(eps)); to see the operation, rerun with "
            "nndebug.watch(model, optimizer, overhead=None) (every step recorded) or under "
            "torch.autograd.set_detect_anomaly(True).")


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
