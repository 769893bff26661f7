"""INPUT_VALUES_WRAPPED_AROUND: the inputs are 256 evenly spaced levels whose neighbours
become much smoother when every level is shifted cyclically: they wrapped around in 8-bit
integer arithmetic before they were made floats.

``(x - 128) / 128`` on a ``uint8`` image computes ``x - 128`` in 8 bits: 28 - 128 is 156.
Every pixel darker than the offset lands at the top of the range: black becomes 1.0, white
0.99, mid-grey 1.99 and 0.0. The inputs still look normalised; the model learns poorly from
an image cut in two at mid-grey. Public report: "Numpy - normalize RGB pixel array",
https://stackoverflow.com/questions/48785115/numpy-normalize-rgb-pixel-array (a pixel [28
25 24] came out as [1.22 1.20 1.19]; the answer: "If you perform a subtraction on an uint8
such that the result is negative, a wraparound happens").

Read from ``run.observed.wrapped_input_levels`` (``monitor/wrapped_inputs.py``): in each of
at least WRAP_MIN_BATCHES first training batches, the values are a grid spanning most of a
byte's 256 levels; the cyclic shift of the levels that makes neighbouring values smoothest
(roughness: mean |neighbour difference| / std) cuts the range inside it (WRAP_MIN_CUT from
either end), brings the roughness to at most WRAP_SMOOTHER of the unshifted data's, and
leaves neighbours closer than independent values are (WRAP_ROUGH_MAX). Healthy 8-bit
images and signals are smoothest unshifted: a shift only tears them where they were
continuous. The roughness is contrast-normalised (a near-binary image and its wrapped copy
are otherwise alike); so that it compares neighbours and not whole samples' brightness, the
samples must vary inside themselves more than between them (monitor's WRAP_MIN_WITHIN_SHARE:
nearly uniform images are not read).
"""
from ..findings import Finding
from .context import observed_list
from .graph import rule

WRAP_MIN_BATCHES = 2     # [design] kept batches that must all show the wrap
WRAP_SMOOTHER = 0.85     # [measured] best-shift roughness / unshifted roughness: 0.70-0.74
                         # on the wrapped digits, 0.49-0.73 on smooth 8-bit fields wrapped
                         # at 100 or 128; exactly 1.0 (best shift 0) on the same data
                         # unwrapped; 0.96 on independent random bytes
WRAP_MIN_CUT = 16        # [design] the best shift cuts the 256 levels at least this far from
                         # either end: a shift of a few levels moves only the extremes
WRAP_ROUGH_MAX = 0.9     # [design] roughness at the best shift: neighbours closer than
                         # independent values (uniform bytes: 1.15)


def wrapped_row(row):
    """Whether one batch's row (``monitor/wrapped_inputs.py``) reads as wrapped."""
    _, _, _, shift, plain, best = row
    return WRAP_MIN_CUT <= shift <= 256 - WRAP_MIN_CUT and plain > 0 and \
        best <= WRAP_SMOOTHER * plain and best <= WRAP_ROUGH_MAX


@rule(produces="INPUT_VALUES_WRAPPED_AROUND")
def input_values_wrapped_around(ctx):
    rows = observed_list(ctx, "wrapped_input_levels")
    wrapped = [r for r in rows if wrapped_row(r)]
    if len(wrapped) < WRAP_MIN_BATCHES or len(wrapped) < len(rows):
        return None
    step, n, span, shift, plain, best = wrapped[0]
    cut = 256 - shift
    return Finding(
        code="INPUT_VALUES_WRAPPED_AROUND", severity="warning", where="inputs",
        step=step,
        message=f"The inputs are {span + 1} evenly spaced levels (an 8-bit range), and "
                f"neighbouring values become much smoother when the levels are shifted "
                f"cyclically by {shift} (roughness {plain:.2f} -> {best:.2f}): the values "
                f"below level {cut} belong above the others. They wrapped around in 8-bit "
                "integer arithmetic before becoming floats, as (x - 128) / 128 does on a "
                "uint8 image (28 - 128 is 156 in uint8): the image is cut in two and its "
                "halves swapped.",
        evidence={"batches": len(wrapped), "rows": n, "levels_spanned": span + 1,
                  "best_shift": shift, "roughness": plain, "roughness_shifted": best},
        fix="Convert to float before any arithmetic: (x.astype(np.float32) - 128) / 128, "
            "x.float() - mean, or write the constant as a float (x - 128.0).")
