"""Regression targets and rates that no model output can meet (real-bug batch 69).

NONFINITE_TARGETS: the targets that reach the loss hold NaN or +-Inf, and the run's loss went
non-finite. A log taken of targets that include 0 (counts, or a min-max scaling whose
minimum maps to exactly 0: "Negative or very small positive values produce nan values of
loss and metric during training", kdgutier/esrnn_torch#18), a division by a zero standard
deviation, a missing value read as NaN: the error of that row is infinite, its gradient
NaN, and after one update every weight is NaN. NaN/Inf in the INPUTS are NAN_IN_INPUTS;
this is the other half of the batch, read from the loss call of each recorded step
(``run.observed.loss_calls``: the targets' min and max, already packed into the step's one
transfer; nothing new is observed). Recorded steps are few, but a non-finite loss makes the
monitor record the next steps, so a bad row that comes back every epoch is seen there.
Healthy look-alike: NaN targets on purpose, masked by the loss (missing labels, a
``torch.isfinite(y)`` mask): the loss stays finite, and nothing is said.

LOG_OF_UNBOUNDED_OUTPUT: ``PoissonNLLLoss(log_input=False)`` (or ``poisson_nll_loss(...,
log_input=False)``) computes ``input - target * log(input + eps)``, the log of the model's
output, and the output is an unbounded one that went negative on a recorded step: the
log of a negative number is NaN, the batch's loss NaN ("torch.nn.PoissonNLLLoss returns NaN
for negative input when log_input=False", pytorch/pytorch#184030). The loss module's
``log_input`` and the output's min are read from the loss call. Healthy look-alikes: the
same loss fed a softplus or exp output (never negative), or ``log_input=True``.
"""
import math

from ..findings import Finding
from .context import fmt, observed_list
from .graph import rule

NAN_SYMPTOMS = {"NAN_LOSS", "NAN_GRADIENTS", "NAN_BORN_IN_FORWARD", "NAN_BORN_IN_BACKWARD",
                "EXPLODING_GRADIENTS", "LOSS_DIVERGING"}
RATE_LOG_LOSSES = ("PoissonNLLLoss", "poisson_nll_loss")   # [design] losses that take the
                              # log of their input when told the input is a rate
                              # (log_input=False: torch's documented formula)
NEGATIVE_RATE_BELOW = 0.0     # [design] a rate below this has no log: any negative output


def _went_nonfinite(ctx):
    return ctx.first_nan_step is not None or "NAN_LOSS" in ctx.found or \
        "NAN_GRADIENTS" in ctx.found


def _nonfinite_targets(call):
    if call.target_shape is None:
        return False
    low, high = call.target_min, call.target_max
    return not (math.isfinite(low) and math.isfinite(high))


@rule(produces="NONFINITE_TARGETS", reads={"NAN_LOSS", "NAN_GRADIENTS"},
      explains=NAN_SYMPTOMS)
def nonfinite_targets(ctx):
    if not _went_nonfinite(ctx):     # the cheap precondition first: a healthy run stops here
        return None
    calls = observed_list(ctx, "loss_calls")
    bad = [c for c in calls if _nonfinite_targets(c)]
    if not bad:
        return None
    first = bad[0]
    kinds = sorted({("-inf" if c.target_min == -math.inf else
                     "+inf" if c.target_max == math.inf else "NaN") for c in bad})
    return Finding(
        code="NONFINITE_TARGETS", severity="error", where="loss", step=first.step,
        message=f"The targets given to {first.loss} hold {'/'.join(kinds)} values (first "
                f"seen at step {first.step}, in {len(bad)} of {len(calls)} recorded loss "
                "calls), and the loss went non-finite: a target of -inf/+inf/NaN makes its "
                "row's error infinite and the gradient NaN, and one update turns every "
                "weight into NaN. A log taken of targets that include 0 (a min-max scaling "
                "maps the minimum to exactly 0), a division by a zero std or a missing value "
                "makes them.",
        evidence={"steps": [c.step for c in bad][:20], "calls_with_nonfinite_targets": len(bad),
                  "calls_read": len(calls), "target_min": first.target_min,
                  "target_max": first.target_max, "first_nan_step": ctx.first_nan_step},
        fix="Make every target finite before training: shift positive before a log (log(y + c) "
            "or log1p), scale after the log rather than before it, drop or impute missing "
            "values; check with torch.isfinite(y).all() on the whole target set.")


@rule(produces="LOG_OF_UNBOUNDED_OUTPUT", reads={"NAN_LOSS", "NAN_GRADIENTS"},
      explains=NAN_SYMPTOMS)
def log_of_unbounded_output(ctx):
    if not _went_nonfinite(ctx):
        return None
    calls = [c for c in observed_list(ctx, "loss_calls")
             if c.loss in RATE_LOG_LOSSES and getattr(c, "log_input", None) is False]
    if not calls:
        return _log_reborn_each_step(ctx)   # real-bug batch 72: a log of a learned value
    negative = [c for c in calls if c.output_min < NEGATIVE_RATE_BELOW]
    if not negative:
        return None
    first = negative[0]
    return Finding(
        code="LOG_OF_UNBOUNDED_OUTPUT", severity="error", where="loss", step=first.step,
        message=f"{first.loss} is told its input is the rate itself (log_input=False), so it "
                f"takes log(input + eps), but the model's output reached {fmt(first.output_min)} "
                f"at step {first.step} (negative on {len(negative)} of {len(calls)} recorded "
                "calls): the log of a negative number is NaN, and so is the batch's loss. The "
                "output is unbounded (a plain linear layer), not a rate.",
        evidence={"steps": [c.step for c in negative][:20], "output_min": first.output_min,
                  "calls_read": len(calls), "first_nan_step": ctx.first_nan_step},
        fix="Read the output as the log rate (log_input=True, the default: exp(input) - "
            "target * input), or make it positive before the loss (softplus, exp).")


# real-bug batch 72 (QunBB/DeepLearning#1): ``loss / (2 * w**2) + log(w)`` with the uncertainty
# ``w`` itself trained, nothing keeping it positive. It crosses zero on an easy task, and
# from then on the log makes the loss NaN again on every step, out of finite numbers, while
# the gradient (1 / w) stays finite and the weights train on: the births of
# ``nonfinite_origins.py`` after the first NaN, which NAN_BORN_IN_FORWARD does not read (it
# reads the step that first went non-finite, rarely a recorded one).
LOG_REBORN_MIN_STEPS = 3      # [design] recorded steps after the first NaN whose NaN a log
                              # made again from finite numbers: a log that lost its argument
                              # for good, not one odd batch
LOG_OPERATIONS = ("log", "log2", "log10")


def _log_reborn_each_step(ctx):
    symptom = ctx.first_nan_step
    births = getattr(ctx.run.observed, "nonfinite_births", None) or []
    if symptom is None or not births or "NAN_GRADIENTS" in ctx.found:
        return None
    after = [b for b in births if b[0] >= symptom and b[1] == "forward"]
    logs = [b for b in after if b[2] in LOG_OPERATIONS]
    if len({b[0] for b in logs}) < LOG_REBORN_MIN_STEPS or len(logs) < len(after) or \
            len({b[4] for b in logs}) != 1:
        return None
    finite = [r for r in ctx.all_records if r.step >= symptom and r.activations and
              all(math.isfinite(st.get("mean", 0.0)) for st in r.activations.values())]
    if len(finite) < LOG_REBORN_MIN_STEPS:
        return None                 # the weights went NaN too: not a loss-only NaN
    first = logs[0]
    return Finding(
        code="LOG_OF_UNBOUNDED_OUTPUT", severity="error", where=first[3] or "loss",
        step=symptom,
        message=f"The loss is NaN from step {symptom} on, and on each of the "
                f"{len({b[0] for b in logs})} recorded steps after it the NaN was made again "
                f"by {first[2]} at {first[4]} out of finite numbers, while the gradients, "
                "activations and weights stayed finite: a log of a learned value that is "
                "not kept positive (an uncertainty weight sigma trained itself, "
                "log(sigma) in the loss) has crossed zero. Training goes on with a loss that "
                "no longer measures anything, and near zero 1 / sigma^2 blows up that term's "
                "gradient.",
        evidence={"first_nan_step": symptom, "operation": first[2], "source": first[4],
                  "module": first[3], "steps": sorted({b[0] for b in logs})[:20]},
        fix="Train the log of the value instead (s = log sigma^2: loss / (2 * exp(s)) + s / 2), "
            "or make it positive by construction (softplus, exp) before the log.")
