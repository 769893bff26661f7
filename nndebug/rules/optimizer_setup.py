"""Rules about what reaches the optimizer between backward and optimizer.step(): gradients
that backward delivered but that were scaled away (to nothing) before the step used them.

The monitor measures, for every trainable parameter, the norm of the gradient backward
delivered since the previous optimizer step (``grad_norm``) and the norm ``.grad`` held when
``optimizer.step()`` ran (``held_norm``). Clipping and AMP unscaling shrink ``.grad`` in
between on purpose, by a factor near one; a ``.grad`` that holds a vanishing fraction of the
delivered gradient on most steps means the optimizer steps with (almost) nothing.
"""
import numpy as np

from ..findings import Finding
from .context import CLASS_INDEX_LOSSES, MAJORITY, MIN_RECORDS, judged_loss_calls, per_parameter
from .curve import learning_poor
from .graph import rule

CLIPPED_AWAY_RATIO = 1e-3   # [design] |.grad| at step() below a thousandth of what backward
                            # delivered: clipping to a norm of 0 (or a tiny one) gives 0 here;
                            # healthy clipping rescales by the max norm over the gradient norm,
                            # 0.02-1 for clip norms of 1 and gradient norms up to 50 [playbook]


def _held_and_delivered(record, width):
    """(|.grad at step()|, |gradient delivered|) of the parameters that received a
    gradient and had both measured, or None when there are none."""
    held = per_parameter(record, "held_norm", width)
    delivered = per_parameter(record, "grad_norm", width)
    if not record.backward or held is None or delivered is None:
        return None
    ok = np.isfinite(held) & np.isfinite(delivered) & (delivered > 0)
    return (held[ok], delivered[ok]) if ok.any() else None


def _held_fraction(record, width):
    """Median over parameters of |.grad at step()| / |gradient delivered|, or None when the
    record did not measure both for a parameter that received a gradient."""
    measured = _held_and_delivered(record, width)
    return None if measured is None else float(np.median(measured[0] / measured[1]))


def _zeroed_from_some_step(ctx):
    """(real-bug batch 151) The recorded steps, from the first one on which every .grad
    was exactly 0 at optimizer.step() though backward had delivered gradients, when such
    steps make up every one of the last MIN_RECORDS records and a majority of the records
    from the first on; else []. An exact 0 is nothing a clip norm or an unscale gives a
    gradient that arrived: it is a clip coefficient of max_norm / inf (a norm squared and
    summed in fp16 overflows) or a factor that can be 0, and from then on the optimizer
    steps with nothing while the loss of the first steps already fell (a digits MLP:
    0.53 held-out accuracy against 0.97). So no poor-learning test is asked for it."""
    width = len(ctx.run.params)
    exact = [(r.step, _all_zero(r, width)) for r in ctx.records[1:]]
    exact = [(step, zero) for step, zero in exact if zero is not None]
    first = next((i for i, (_, zero) in enumerate(exact) if zero), None)
    if first is None:
        return []
    since = exact[first:]
    zero_steps = [step for step, zero in since if zero]
    if len(zero_steps) < MIN_RECORDS or len(zero_steps) <= MAJORITY * len(since) or \
            not all(zero for _, zero in exact[-MIN_RECORDS:]):
        return []
    return zero_steps


def _all_zero(record, width):
    """Whether every parameter that received a gradient held exactly 0 at step() (None
    when not measured)."""
    measured = _held_and_delivered(record, width)
    return None if measured is None else bool(np.all(measured[0] == 0.0))


@rule(produces="GRADIENTS_CLIPPED_AWAY",
      explains={"PARAMS_NOT_UPDATING", "LR_TOO_LOW", "LOSS_PLATEAU", "LOSS_AT_CHANCE"})
def gradients_clipped_away(ctx):
    """GRADIENTS_CLIPPED_AWAY: between backward and optimizer.step() the gradients are scaled
    to almost nothing (a clipping threshold far too small), so the optimizer barely moves."""
    if not ctx.run.has_optimizer:
        # (real-bug batch 99) without a watched optimizer .grad is read at ``mon.step``,
        # after a hand-written update (``p -= lr * p.grad; p.grad.zero_()``) cleared it on
        # purpose: the held norm says nothing about what the update used
        return None
    zeroed = _zeroed_from_some_step(ctx)
    if not zeroed and not learning_poor(ctx):
        return None     # the verdict needs it: asked first, it spares every record's median
    width = len(ctx.run.params)
    fractions = [(r.step, f) for r in ctx.records[1:]      # step 0 may hold older gradients
                 if (f := _held_fraction(r, width)) is not None]
    shrunk = [(step, f) for step, f in fractions if f < CLIPPED_AWAY_RATIO]
    if zeroed:
        shrunk = [(step, f) for step, f in fractions if step >= zeroed[0] and f == 0.0]
        fractions = [(step, f) for step, f in fractions if step >= zeroed[0]]
    if len(shrunk) < MIN_RECORDS or len(shrunk) < MAJORITY * len(fractions):
        return None
    median = float(np.median([f for _, f in shrunk]))
    return Finding(
        code="GRADIENTS_CLIPPED_AWAY", severity="error", step=shrunk[0][0],
        message=f"backward delivered gradients, but at optimizer.step() the parameters' .grad "
                f"held {median:.2g} x of them (median over parameters, on {len(shrunk)} of "
                f"{len(fractions)} recorded steps): something between backward and the step "
                "scales the gradients to (almost) nothing, so the optimizer barely moves the "
                "weights. Typically gradient clipping with a maximum norm of 0 (a config's "
                "'0 = no clipping') or a tiny clip value" +
                (", or a clip coefficient of max_norm / inf: a gradient norm squared and "
                 "summed in float16 overflows above 256." if zeroed else "."),
        evidence={"held_over_delivered": [round(f, 6) for _, f in shrunk[:20]],
                  "steps_flagged": [s for s, _ in shrunk[:20]], "steps_checked": len(fractions),
                  "threshold": CLIPPED_AWAY_RATIO},
        fix="Check what runs between loss.backward() and optimizer.step(): clip only when a "
            "positive maximum norm is configured (e.g. 'if max_norm > 0: clip_grad_norm_(...)'), "
            "with a norm near the gradients' usual size (1.0 is common), and do not multiply "
            "the gradients by a factor that can be 0.")


# --- LOSS_SCALED_FOR_BACKWARD ----------------------------------------------------------------
#
# A bound that holds for any weights: a class-index loss (cross-entropy, or NLL on
# log-probabilities) gives each row of the logits a gradient of norm at most sqrt(2) / N for
# the mean over N rows (sqrt(2) for the sum), so the output layer's bias, which adds one
# value to every row's logits, receives a gradient of norm at most sqrt(2) x batch size under
# either reduction. Far above that, backward ran on the loss multiplied by a large factor
# that nothing divided out again: a GradScaler's scaled loss stepped with optimizer.step()
# instead of scaler.step(optimizer).
ROW_GRADIENT_BOUND = np.sqrt(2.0)   # [design] |softmax - one-hot| <= sqrt(2) (calculus)
BIAS_GRADIENT_MARGIN = 16.0         # [design] above 16 x the bound: not a loss weight of a few,
                                    # a temperature or a handful of accumulated micro-batches;
                                    # a GradScaler's default scale is 65536 (torch.amp docs)
NOT_UNSCALED_SHARE = 0.5            # [design] .grad at step() still holds over half of the
                                    # delivered gradient: nothing divided the factor out


def _output_bias(ctx, classes):
    """Index of the last trainable vector of ``classes`` values named like a bias (the
    output layer's bias, which feeds every row's logits), or None."""
    for i in range(len(ctx.run.params) - 1, -1, -1):
        p = ctx.run.params[i]
        if tuple(p.shape) == (classes,) and p.name.rsplit(".", 1)[-1] == "bias":
            return i
    return None


def _loss_rows(calls, classes):
    """Rows per loss call of the judged steps: {step: rows}, for calls whose input has the
    output's ``classes`` columns; one call per step only (several loss terms: no bound)."""
    per_step = {}
    for call in calls:
        shape = tuple(call.output_shape or ())
        if len(shape) != 2 or shape[1] != classes:
            continue
        per_step.setdefault(call.step, []).append(shape[0])
    return {step: rows[0] for step, rows in per_step.items() if len(rows) == 1}


@rule(produces="LOSS_SCALED_FOR_BACKWARD",
      explains={"EXPLODING_GRADIENTS", "LOSS_DIVERGING", "LOSS_OSCILLATING", "NAN_LOSS",
                "NAN_GRADIENTS", "LR_TOO_HIGH"})
def loss_scaled_for_backward(ctx):
    """LOSS_SCALED_FOR_BACKWARD: the gradients at optimizer.step() are far larger than the loss
    can give: backward ran on the loss times a large factor (a GradScaler's scale) that was
    never undone before the step."""
    classes = ctx.classes
    if classes is None or classes < 2:
        return None
    bias = _output_bias(ctx, classes)
    rows = _loss_rows(judged_loss_calls(ctx, CLASS_INDEX_LOSSES), classes)
    if bias is None or not rows:
        return None
    width = len(ctx.run.params)
    checked, flagged = 0, []
    for r in ctx.records:
        delivered = per_parameter(r, "grad_norm", width)
        held = per_parameter(r, "held_norm", width)
        if r.step not in rows or not r.backward or delivered is None or held is None or \
                not np.isfinite(delivered[bias]) or not np.isfinite(held[bias]):
            continue
        checked += 1
        bound = ROW_GRADIENT_BOUND * rows[r.step]
        # a GradScaler used as meant unscales .grad before the step: the large delivered
        # gradient is then divided out, and .grad holds a fraction of it at step()
        not_divided_out = held[bias] > NOT_UNSCALED_SHARE * delivered[bias]
        if delivered[bias] > BIAS_GRADIENT_MARGIN * bound and not_divided_out:
            flagged.append((r.step, float(delivered[bias] / bound)))
    if len(flagged) < MIN_RECORDS or len(flagged) < MAJORITY * checked:
        return None
    factor = float(np.median([f for _, f in flagged]))
    name = ctx.run.params[bias].name
    losses = "/".join(sorted({c.loss for c in ctx.run.observed.loss_calls
                              if c.loss in CLASS_INDEX_LOSSES}))
    return Finding(
        code="LOSS_SCALED_FOR_BACKWARD",
        severity="error" if learning_poor(ctx) else "info", where=name, step=flagged[0][0],
        message=f"The output layer's bias ({name}) received a gradient {factor:.3g} x larger "
                f"than any {losses} loss over the batch can give it (at most sqrt(2) x the "
                "batch size, whatever the weights), and .grad still held it at "
                "optimizer.step(): backward ran on the loss multiplied by a large factor that "
                "was never divided out, e.g. a GradScaler's scaler.scale(loss).backward() "
                "followed by optimizer.step() instead of scaler.step(optimizer). Every update "
                "is that many times too large.",
        evidence={"over_bound": [round(f, 1) for _, f in flagged[:20]],
                  "steps_flagged": [s for s, _ in flagged[:20]], "steps_checked": checked,
                  "margin": BIAS_GRADIENT_MARGIN},
        fix="With a GradScaler, step through it: scaler.scale(loss).backward(); "
            "scaler.step(optimizer); scaler.update() (call scaler.unscale_(optimizer) before "
            "clipping). Without mixed precision, drop the scaler, or divide the loss factor "
            "out before optimizer.step().")
