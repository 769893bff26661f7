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
from .context import MAJORITY, MIN_RECORDS
from .curve import learning_poor
from .graph import rule

CLIPPED_AWAY_RATIO = 1e-3   # [design] |.grad| at step() below a thousandth of what backward
                            # delivered: clipping to a norm of 0 (or a tiny one) gives 0 here;
                            # healthy clipping rescales by the max norm over the gradient norm,
                            # 0.02-1 for clip norms of 1 and gradient norms up to 50 [playbook]


def _per_parameter(record, attribute, width):
    value = getattr(record, attribute)
    if value is None or len(value) != width:
        return None
    return np.asarray(value, dtype=float)


def _held_fraction(record, width):
    """Median over parameters of |.grad at step()| / |gradient delivered|, or None when the
    record did not measure both for a parameter that received a gradient."""
    held = _per_parameter(record, "held_norm", width)
    delivered = _per_parameter(record, "grad_norm", width)
    if not record.backward or held is None or delivered is None:
        return None
    ok = np.isfinite(held) & np.isfinite(delivered) & (delivered > 0)
    if not ok.any():
        return None
    return float(np.median(held[ok] / delivered[ok]))


@rule(produces="GRADIENTS_CLIPPED_TO_ZERO",
      explains={"PARAMS_NOT_UPDATING", "LOSS_PLATEAU", "LOSS_AT_CHANCE"})
def gradients_clipped_to_zero(ctx):
    width = len(ctx.run.params)
    fractions = [(r.step, f) for r in ctx.records[1:]      # step 0 may hold older gradients
                 if (f := _held_fraction(r, width)) is not None]
    shrunk = [(step, f) for step, f in fractions if f < CLIPPED_AWAY_RATIO]
    if len(shrunk) < MIN_RECORDS or len(shrunk) < MAJORITY * len(fractions) or \
            not learning_poor(ctx):
        return None
    median = float(np.median([f for _, f in shrunk]))
    return Finding(
        code="GRADIENTS_CLIPPED_TO_ZERO", severity="error", step=shrunk[0][0],
        message=f"backward delivered gradients, but at optimizer.step() the parameters' .grad "
                f"held {median:.2g} x of them (median over parameters, on {len(shrunk)} of "
                f"{len(fractions)} recorded steps): something between backward and the step "
                "scales the gradients to (almost) nothing, so the optimizer barely moves the "
                "weights. Typically gradient clipping with a maximum norm of 0 (a config's "
                "'0 = no clipping') or a tiny clip value.",
        evidence={"held_over_delivered": [round(f, 6) for _, f in shrunk[:20]],
                  "steps_flagged": [s for s, _ in shrunk[:20]], "steps_checked": len(fractions),
                  "threshold": CLIPPED_AWAY_RATIO},
        fix="Check what runs between loss.backward() and optimizer.step(): clip only when a "
            "positive maximum norm is configured (e.g. 'if max_norm > 0: clip_grad_norm_(...)'), "
            "with a norm near the gradients' usual size (1.0 is common), and do not multiply "
            "the gradients by a factor that can be 0.")
