"""NORM_OVER_SINGLE_VALUE: a group norm or layer norm whose every group holds one value
(``run.observed.single_value_norms``).

Normalising a group of one value subtracts that value from itself: the output is the layer's
bias for every sample, no gradient passes back, and the layers before it stop learning. It
runs without an error in PyTorch: ``GroupNorm(C, C)`` on 1x1 maps after a global pooling, or
on a (batch, C) table ("the activations of the network will become all zeros, which would
effectively prevent any learning", pytorch/pytorch#19250; the same zeros again in
pytorch/pytorch#94288); ``LayerNorm(1)`` on a one-unit output. The harm shows as dead or
collapsed activations, vanishing gradients and a loss stuck at chance, which this cause
explains.

Read from the loss's graph on the first recorded steps (``monitor/single_value_norms.py``):
the sizes torch's group-norm and layer-norm nodes keep.
"""
from ..findings import Finding
from .context import observed_list, short_list
from .graph import rule

SINGLE_VALUE_MIN_STEPS = 2   # [design] measured steps with such a norm: the model's habit,
                             # not one odd batch (three are measured)


@rule(produces="NORM_OVER_SINGLE_VALUE",
      explains={"DEAD_RELU", "COLLAPSED_ACTIVATIONS", "VANISHING_GRADIENTS", "LOSS_AT_CHANCE",
                "LOSS_PLATEAU", "NO_GRADIENT"})
def norm_over_single_value(ctx):
    rows = observed_list(ctx, "single_value_norms")
    steps = sorted({row[0] for row in rows})
    if len(steps) < SINGLE_VALUE_MIN_STEPS:
        return None
    step, kind, names, groups, channels, _ = rows[0]
    where = names[0] if len(names) == 1 else kind
    named = f" ({short_list(names)})" if names else ""
    if kind == "GroupNorm":
        what = (f"GroupNorm({groups}, {channels}){named} normalises groups of ONE value "
                f"({channels // groups} channel per group on a 1x1 map, or on a (batch, "
                "channels) table)")
        fix = ("Give each group several values: fewer groups (GroupNorm(8, C): C/8 channels "
               "per group), or normalise before the pooling that leaves 1x1 maps; a (batch, C) "
               "table wants LayerNorm(C) or BatchNorm1d(C).")
    else:
        what = (f"LayerNorm{named} normalises over a single value (normalized_shape of "
                "size 1)")
        fix = ("Normalise over the feature axis (LayerNorm(features) on (..., features)), or "
               "drop the norm on a one-unit output.")
    return Finding(
        code="NORM_OVER_SINGLE_VALUE", severity="error", where=where, step=step,
        message=f"{what}: each value is its own group's mean, so the "
                "layer outputs 0 (then its bias) for every sample, seen on "
                f"{len(steps)} measured steps. Nothing the layers before it compute reaches "
                "the output, and no gradient reaches them.",
        evidence={"steps": steps, "layers": names, "kind": kind, "groups": groups,
                  "channels": channels},
        fix=fix)
