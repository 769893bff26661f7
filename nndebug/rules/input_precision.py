"""INPUTS_ROUNDED_BY_LOW_PRECISION: input features that vary by no more than a few steps of
their dtype at their own magnitude: the cast to that dtype (bfloat16, float16, float32 from
float64) rounded away what they varied by, before the model saw them.

A bfloat16 training loop that casts the whole batch to bfloat16 turns a mass-to-charge ratio
near 600 (resolution 0.01) into 600, 604, 608 ...; a year near 2010 into multiples of 8; a
position id past 256 into even numbers. The model trains on what is left and nothing fails.
Public report: "Add float16 and bfloat16 support in sinusoidal encodings.",
https://github.com/wfondrie/depthcharge/pull/82 ("the mz resolution of MS experiments can
not be faithfully represented using bfloat16 and float16 inputs"; the fix keeps the raw
values in float32 and casts after the encoding).

Read from ``run.observed.rounded_input_columns`` (``monitor/input_precision.py``): in each of
at least MIN_BATCHES_ROUNDED first training batches, some column that varies has a standard
deviation under ``SPREAD_STEPS`` of its dtype's steps at its mean. Columns near zero or that
vary by many steps (standardised features, pixels in [0, 1], counts) are never reported,
whatever the dtype. A warning: the information is gone whatever the loss curve does (the
model may still learn from the bits left, more poorly).
"""
import math

from ..findings import Finding
from .context import observed_list
from .graph import rule

MIN_BATCHES_ROUNDED = 2     # [design] kept batches that must show rounded columns: the cast
                            # is made the same way on every batch


def _fmt(value):
    return f"{value:.4g}" if math.isfinite(value) else "?"


@rule(produces="INPUTS_ROUNDED_BY_LOW_PRECISION")
def inputs_rounded_by_low_precision(ctx):
    rows = observed_list(ctx, "rounded_input_columns")
    rounded = [r for r in rows if r[4] > 0]
    if len(rounded) < MIN_BATCHES_ROUNDED:
        return None
    step, dtype, n, varied, count, column, mean, std, spacing = rounded[0]
    return Finding(
        code="INPUTS_ROUNDED_BY_LOW_PRECISION", severity="warning", where="inputs",
        step=step,
        message=f"The model's inputs arrive as {dtype}, and {count} of the {varied} input "
                f"columns that vary do so by no more than a few of {dtype}'s steps at their "
                f"magnitude: column {column} has mean {_fmt(mean)} and std {_fmt(std)}, "
                f"where {dtype} can only hold values {_fmt(spacing)} apart. The cast to "
                f"{dtype} rounded away what these features vary by (a mass near 600 becomes "
                "600, 604, 608; a year near 2010 a multiple of 8; a position past 256 an even "
                "number) before the model could centre and scale them.",
        evidence={"dtype": dtype, "rows": n, "varied_columns": varied, "rounded_columns": count,
                  "column": column, "mean": mean, "std": std, "dtype_spacing": spacing,
                  "batches": len(rounded)},
        fix=f"Keep raw inputs (masses, positions, timestamps, years) in float32 and cast to "
            f"{dtype} only after the model has centred and scaled them (or let autocast cast "
            "inside the model); or centre them in float32 before the cast.")
