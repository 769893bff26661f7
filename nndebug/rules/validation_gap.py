"""VALIDATION_NEVER_IMPROVED: the training loss fell far, and the validation loss never got
much better than the untrained model's loss.

A model that learns anything general improves on held-out data at first, even when it
overfits later (the validation loss falls, then rises: OVERFITTING). A validation loss that
stays at the untrained level, or climbs from it, while the training loss falls to a
fraction of its start, means validation does not measure the model that trains on the data
it trains on: the validation set's labels are numbered differently (classes listed in
another order), its inputs miss a step of the training pipeline, or the model that is
evaluated is not the trained one (an EMA copy never updated, a checkpoint loaded from
elsewhere). Read from the training loss curve and the validation losses passed to
``mon.step(loss, val_loss=...)``.

Both losses must be on one scale for the comparison to mean anything: a validation loss
summed over the whole set (not averaged) starts far above the training loss. The rule then
speaks only when the validation loss keeps climbing (a model ever more sure of what the
validation labels call wrong: an easy task learnt before the first validation starts its
validation loss high already).

A second, scale-free look: every validation returned exactly the same value while the
training loss kept falling between the first and the last of them. A model whose weights
change does not score exactly the same on held-out data three times over; the validation
number measures something that does not depend on the model - an ``argmax`` without its
class axis (one index into the flattened (batch, classes) table, so every "prediction" is
wrong and the error stays 1.0), a stale variable, a frozen copy. Early stopping on such a
number stops the run at its first patience limit.
"""
import numpy as np

from ..findings import Finding
from .graph import rule

MIN_VALIDATIONS = 3          # [design] validation losses needed (three epochs)
START_WINDOW = 5             # [design] training steps whose median is the training loss at a
                             # given step
END_SHARE = 0.2              # [design] the last fifth of the curve is its end level
TRAIN_FELL = 0.5             # [measured] the training loss ended at half its start or below
                             # (the zoo's healthy classifiers end far lower; a run that learns
                             # less than this is judged by the loss-curve rules first)
EARLY_VALIDATION = 0.5       # [design] the first validation came before the training loss had
                             # made half of its fall: a validation loss first measured after
                             # the model learnt may have been better before (an overfitting
                             # run whose best point was never measured)
VAL_SHARE_OF_GAIN = 0.25     # [measured] validation recovered under a quarter of what the
                             # training loss gained: healthy runs on the digits recover 90%
                             # or more at their best, overfitting ones (30 to 300 training
                             # samples) three quarters or more; the reproduced bugs
                             # (benchmarks/real_bugs/) recover 5% or less, or get worse
VAL_OWN_FALL = 0.25          # [measured] and the validation loss never fell by a quarter of
                             # its own first value (a second look on its own scale)
SAME_SCALE = 2.0             # [design] the first validation loss at most twice the untrained
                             # training loss, or
VAL_CLIMB = 1.25             # [design] the validation loss still climbing (its last value a
                             # quarter above its first: a model ever more sure of answers the
                             # validation labels call wrong); otherwise the two losses may be
                             # on different scales (a sum over the validation set) and are not
                             # compared
CONSTANT_CHECKS = 3          # [design] validations that all returned one value (three epochs)
SAME_VALUE = 1e-9            # [design] relative spread below which the validation values are one
                             # value (a metric recomputed on a model that changed differs by far
                             # more: float noise alone is about 1e-7 in float32)
STILL_UNTRAINED = 0.5        # [design] at the first validation the training loss was still above
                             # half the untrained loss: a constant from that point on is not a
                             # perfect score the model reached before validation began
KEPT_FALLING = 0.1           # [measured] the training loss fell by a tenth of its value at the
                             # first validation by the last one (the reproduced argmax without an
                             # axis, benchmarks/real_bugs/validation_argmax_without_axis_stops_
                             # training_early.py: 15% and 14% at seeds 0 and + 1000)


def constant_validation(steps, curve, val_steps, val):
    """``(value, untrained, train_first, train_last)`` when every one of CONSTANT_CHECKS or
    more validations returned the same value while the training loss, still untrained at the
    first of them, kept falling until the last; else None. Same arguments as
    ``validation_gap``."""
    steps, curve = np.asarray(steps), np.asarray(curve, dtype=float)
    val_steps, val = np.asarray(val_steps), np.asarray(val, dtype=float)
    if len(val) < CONSTANT_CHECKS or not len(curve):
        return None
    value = float(val[0])
    if float(np.max(val) - np.min(val)) > SAME_VALUE * max(abs(value), 1e-12):
        return None
    untrained = float(curve[0])
    at_first = curve[steps <= val_steps[0]][-START_WINDOW:]
    at_last = curve[steps <= val_steps[-1]][-START_WINDOW:]
    if not untrained > 0 or not len(at_first) or not len(at_last):
        return None
    train_first, train_last = float(np.median(at_first)), float(np.median(at_last))
    if train_first <= STILL_UNTRAINED * untrained:
        return None
    if train_last > (1 - KEPT_FALLING) * train_first:
        return None
    return value, untrained, train_first, train_last


def validation_gap(steps, curve, val_steps, val):
    """``(untrained, train_end, val_first, val_best)`` when validation never recovered
    VAL_SHARE_OF_GAIN of what the training loss gained; else None.

    ``steps``, ``curve``: the training losses and their steps, in order; ``val_steps``,
    ``val``: the finite validation losses and their steps, in order. The untrained loss is
    the first training loss (the model before any update)."""
    steps, curve = np.asarray(steps), np.asarray(curve, dtype=float)
    val_steps, val = np.asarray(val_steps), np.asarray(val, dtype=float)
    if len(val) < MIN_VALIDATIONS or len(curve) < 4 * START_WINDOW:
        return None
    untrained = float(curve[0])
    train_end = float(np.median(curve[-max(START_WINDOW, int(END_SHARE * len(curve))):]))
    if not untrained > 0 or train_end > TRAIN_FELL * untrained:
        return None
    gained = untrained - train_end
    before_first = curve[steps <= val_steps[0]][-START_WINDOW:]
    if not len(before_first) or \
            untrained - float(np.median(before_first)) > EARLY_VALIDATION * gained:
        return None
    val_first, val_best = float(val[0]), float(np.min(val))
    if not val_first > 0 or not (val_first <= SAME_SCALE * untrained or
                                 val[-1] >= VAL_CLIMB * val_first):
        return None
    if untrained - val_best >= VAL_SHARE_OF_GAIN * gained:
        return None
    if val_best < (1 - VAL_OWN_FALL) * val_first:
        return None
    return untrained, train_end, val_first, val_best


@rule(produces="VALIDATION_NEVER_IMPROVED", explains={"OVERFITTING"})
def validation_never_improved(ctx):
    steps, val = ctx.run.val_array()
    ok = np.isfinite(val)
    found = validation_gap(ctx.curve_steps, ctx.curve, steps[ok], val[ok])
    if found is None:
        return _constant_finding(ctx, steps[ok], val[ok])
    untrained, train_end, val_first, val_best = found
    first_step = int(steps[ok][0])
    return Finding(
        code="VALIDATION_NEVER_IMPROVED", severity="warning", step=first_step,
        message=f"The training loss fell from {untrained:.3g} to {train_end:.3g}, but the "
                f"validation loss never got much below the untrained model's (best "
                f"{val_best:.3g}, first {val_first:.3g}): validation does not measure what "
                "the model learns. The validation labels may number the classes differently "
                "from the training labels, its inputs may skip a step of the training "
                "pipeline (scaling, normalisation), or the model evaluated may not be the "
                "one that trains.",
        evidence={"train_start": untrained, "train_end": train_end,
                  "val_first": val_first, "val_best": val_best,
                  "val_points": int(ok.sum())},
        fix="Compare one validation batch with one training batch: the same class-to-index "
            "mapping (sort class names before numbering them), the same preprocessing "
            "(reuse the fitted scaler or transform), and the trained model (or an average "
            "of it updated after every optimizer step).")


def _constant_finding(ctx, val_steps, val):
    found = constant_validation(ctx.curve_steps, ctx.curve, val_steps, val)
    if found is None:
        return None
    value, untrained, train_first, train_last = found
    return Finding(
        code="VALIDATION_NEVER_IMPROVED", severity="warning", step=int(val_steps[0]),
        message=f"All {len(val)} validations returned exactly {value:.6g} while the training "
                f"loss kept falling ({train_first:.3g} at the first, {train_last:.3g} at the "
                "last): the validation number does not depend on the model being trained, "
                "so it can never improve (early stopping on it stops at its first patience "
                "limit). An argmax without its class axis (dim=1) returns one index into the "
                "flattened batch, not a class per row; a stale variable or a frozen copy of "
                "the model gives the same.",
        evidence={"val_value": value, "val_points": int(len(val)),
                  "train_start": untrained, "train_at_first_val": train_first,
                  "train_at_last_val": train_last},
        fix="Recompute the validation metric from the current model at every check, with "
            "predictions per sample: logits.argmax(dim=1) (axis=1 in NumPy), not "
            "logits.argmax().")
