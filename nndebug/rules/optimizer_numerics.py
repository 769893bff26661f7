"""Rules about the optimizer's own arithmetic: a step that turned finite weights and finite
gradients into NaN or Inf.

The monitor measures, on a recorded step, the gradient backward delivered (``grad_norm``),
what ``.grad`` held when ``optimizer.step()`` ran (``held_norm``), and the weights after that
step (``param_norm``, ``update_norm``). When the loss of that step was finite, every
gradient the optimizer read was finite, the weights were finite before, and they are NaN
or Inf right after, nothing but the optimizer's update made them so. NAN_GRADIENTS and
NAN_LOSS then follow on the next step, and look like the cause unless this is said first.

What makes an update non-finite out of finite inputs: a division by zero inside the
optimizer. The usual one is Adam's ``m / (sqrt(v) + eps)`` on float16 weights: the default
eps=1e-8 is below float16's smallest number (6e-8) and rounds to 0, and a squared gradient
that underflows to 0 leaves 0 / 0 [fp16eps]. A learning rate or another hyper-parameter
that is itself NaN does the same.

  [fp16eps] "Training on half precision leads to nan values",
            https://github.com/afiaka87/glide-finetune/issues/5 (Adam on float16 weights
            gives NaN after the first step; eps=1e-4 fixes it); IEEE 754 half precision:
            smallest subnormal 2^-24 = 5.96e-8.
"""
import math

import numpy as np

from ..findings import Finding
from .context import per_parameter, short_list
from .graph import rule


def _finite_array(values):
    """Whether every entry of a per-parameter array is finite (NaN entries of parameters
    that received no gradient count as missing, not as non-finite: see ``_gradients_ok``)."""
    return values is not None and bool(np.isfinite(values).all())


def _gradients_ok(record, width):
    """Whether the gradients the optimizer read at this step were all finite: those backward
    delivered and those .grad held at step() (NaN there marks a parameter without any)."""
    delivered = per_parameter(record, "grad_norm", width)
    held = per_parameter(record, "held_norm", width)
    received = per_parameter(record, "grad_received", width)
    if not record.backward or delivered is None or held is None or received is None:
        return False
    got = np.asarray(received, bool)
    if not got.any():
        return False
    return bool(np.isfinite(delivered[got]).all() and np.isfinite(held[got]).all())


def _loss_at(ctx, step):
    return ctx.loss_by_step.get(step)


def _weights_turned(ctx, width):
    """(record, indices of the parameters whose weights became non-finite) for the first
    recorded step whose optimizer update did it out of finite inputs, or None."""
    before_ok = True          # the weights before the first record: the loss says they worked
    for r in ctx.all_records:
        weights = per_parameter(r, "param_norm", width)
        if weights is None:
            before_ok = False
            continue
        bad = np.flatnonzero(~np.isfinite(weights))
        if bad.size == 0:
            before_ok = True
            continue
        loss = _loss_at(ctx, r.step)
        if before_ok and loss is not None and math.isfinite(loss) and _gradients_ok(r, width):
            return r, bad.tolist()
        return None           # the first non-finite weights came some other way
    return None


@rule(produces="NAN_FROM_OPTIMIZER_STEP",
      explains={"NAN_LOSS", "NAN_GRADIENTS", "EXPLODING_GRADIENTS", "LOSS_DIVERGING"})
def nan_from_optimizer_step(ctx):
    width = len(ctx.run.params)
    found = _weights_turned(ctx, width) if width else None
    if found is None:
        return None
    record, bad = found
    names = [ctx.run.params[i].name for i in bad]
    lrs = [float(v) for v in record.lrs or ()]
    lr_bad = any(not math.isfinite(v) for v in lrs)
    cause = ("the learning rate itself is not a finite number" if lr_bad else
             "a division by zero inside the optimizer: typically Adam's eps (1e-8 by default) "
             "on float16 weights, where it rounds to 0 and a squared gradient that underflows "
             "to 0 gives 0 / 0")
    return Finding(
        code="NAN_FROM_OPTIMIZER_STEP", severity="error", where=names[0], step=record.step,
        message=f"At step {record.step} the loss and every gradient the optimizer read were "
                f"finite, yet right after optimizer.step() the weights of {short_list(names)} "
                f"are NaN/Inf: the optimizer's update itself produced them ({cause}). The "
                "NaN loss and gradients of the following steps are its consequence.",
        evidence={"step": record.step, "non_finite_weights": names[:20],
                  "learning_rates": lrs[:5], "learning_rate_finite": not lr_bad},
        fix="With float16 weights, give Adam an eps that float16 can hold (eps=1e-4), or "
            "better keep float32 weights and train in mixed precision (torch.autocast with a "
            "GradScaler, or bfloat16); check that no hyper-parameter (lr, eps, betas, weight "
            "decay) is NaN or 0 where it divides.")
