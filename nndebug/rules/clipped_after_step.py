"""GRADIENTS_CLIPPED_AFTER_STEP: gradients scaled down after ``optimizer.step()`` used them,
before the next ``zero_grad()`` dropped them (``run.observed.gradients_after_step``,
``monitor/gradients_after_step.py``).

``clip_grad_norm_`` written after the step is the usual way to get there: the clip scales
every gradient by one factor, the update already happened unclipped, and the training it
was meant to steady runs without it. Between the optimizer's step and watch's ``step()``
nothing but the loop's own code touches ``.grad``; a recorded step counts when the
gradients then only shrank (none grew, none was zeroed to 0). One step where every tensor
shrank by the same factor names it (clip_grad_norm_'s signature); an uneven shrink
(clip_grad_value_) must show on ``CLIP_UNEVEN_MIN_STEPS`` steps, since a second backward
into the same ``.grad`` (another network's turn) can also change it.
"""
from ..findings import Finding
from .context import observed_list
from .graph import rule

CLIP_SHRINK_BELOW = 0.999    # [design] after / before under this: the gradient was scaled
                             # down (a clip scales by max_norm / norm; float32 norms of an
                             # untouched tensor agree to ~1e-7)
CLIP_GREW_ABOVE = 1.0 + 1e-4  # [design] after / before above this: something added to the
                              # gradient, which no clip does
CLIP_ONE_FACTOR_SPREAD = 1e-3  # [design] largest / smallest ratio - 1 under this: every
                               # tensor scaled by one factor, as clip_grad_norm_ does (its
                               # float32 rounding stays ~1e-6); one such step names it
CLIP_UNEVEN_MIN_STEPS = 2    # [design] steps that must show an uneven shrink (a clip by value
                             # clamps some entries only) before it is named


def _shrunk(row):
    step, compared, smallest, largest = row
    return compared >= 1 and smallest > 0 and largest <= CLIP_GREW_ABOVE and \
        smallest < CLIP_SHRINK_BELOW


def _one_factor(row):
    return _shrunk(row) and row[1] >= 2 and row[3] / row[2] - 1 < CLIP_ONE_FACTOR_SPREAD


@rule(produces="GRADIENTS_CLIPPED_AFTER_STEP",
      explains={"EXPLODING_GRADIENTS", "LOSS_DIVERGING", "LOSS_OSCILLATING", "NAN_LOSS"})
def gradients_clipped_after_step(ctx):
    rows = observed_list(ctx, "gradients_after_step")
    shown = [row for row in rows if _shrunk(row)]
    if not any(_one_factor(row) for row in shown) and len(shown) < CLIP_UNEVEN_MIN_STEPS:
        return None
    step, compared, smallest, largest = shown[0]
    return Finding(
        code="GRADIENTS_CLIPPED_AFTER_STEP", severity="warning", step=step,
        message=f"After optimizer.step() at step {step} the gradients it had just applied were "
                f"scaled down (to {smallest:.3g}-{largest:.3g} x their size at the step, "
                f"{compared} tensors followed) before zero_grad() dropped them: a gradient "
                "clip (clip_grad_norm_ / clip_grad_value_) written after the step. It runs "
                "every step and changes nothing; the updates go unclipped.",
        evidence={"steps": [row[0] for row in shown],
                  "smallest_ratio": [round(row[2], 4) for row in shown],
                  "largest_ratio": [round(row[3], 4) for row in shown],
                  "tensors_compared": [row[1] for row in shown],
                  "threshold": CLIP_SHRINK_BELOW},
        fix="Clip between loss.backward() and optimizer.step() (with a GradScaler: "
            "scaler.unscale_(optimizer), clip, scaler.step(optimizer)).")
