"""TARGET_COLUMNS_ON_DIFFERENT_SCALES: one regression loss over target columns whose
spreads differ by a factor of ``COLUMN_SPREAD_RATIO`` or more
(``run.observed.target_column_scales``, ``monitor/target_column_scales.py``).

The squared errors of a column grow with the square of its spread: at a ratio of 20 the
wide column's errors are 400 times the narrow one's, so the loss, its gradient and the
shared layers serve the wide column, and the narrow one is left to features made for the
other. Public report: "Two-dimensional MSE loss in MLP training",
https://discuss.pytorch.org/t/two-dimensional-mse-loss-in-mlp-training/180059 (targets
around 0.4 and -22: "One variable is predicted pretty good - but the other is predicted
completely wrong, following the shape of the first variable").

A column that does not vary at all in a batch is not compared (a constant target is
another finding's business); neither is a target of few rows. Targets in raw units
(TARGETS_UNSCALED, found at any severity) are that finding's: its fix, standardising the
targets, evens the columns too (an SSD's box offsets left in pixels beside log-sizes, in
box_targets_left_in_pixels, are named there and not twice).
"""
from ..findings import Finding
from .context import fmt, observed_list
from .graph import rule

COLUMN_SPREAD_RATIO = 20.0   # [design] the widest column's std over the narrowest's: squared
                             # errors 400x apart; the planted report's columns are ~50x apart,
                             # columns in one unit (box corners, several horizons of one
                             # series, latitude and longitude) within ~5x
COLUMN_MIN_ROWS = 8          # [design] rows a batch needs for its column spreads to count


def _spread_ratio(stds):
    """(ratio, widest column, narrowest column) over the columns that vary, or None."""
    varying = [(s, i) for i, s in enumerate(stds) if s > 0 and s == s and s != float("inf")]
    if len(varying) < 2:
        return None
    (low, narrow), (high, wide) = min(varying), max(varying)
    return high / low, wide, narrow


@rule(produces="TARGET_COLUMNS_ON_DIFFERENT_SCALES", reads={"TARGETS_UNSCALED"})
def target_columns_on_different_scales(ctx):
    if "TARGETS_UNSCALED" in ctx.found:
        return None                      # raw-unit targets: named by that rule (module doc)
    rows = [row for row in observed_list(ctx, "target_column_scales")
            if row[2] >= COLUMN_MIN_ROWS]
    judged = [(row, _spread_ratio(row[3])) for row in rows]
    if not judged or any(ratio is None or ratio[0] < COLUMN_SPREAD_RATIO
                         for _, ratio in judged):
        return None                      # every batch read must show it
    (step, loss, _, stds), (ratio, wide, narrow) = judged[0]
    return Finding(
        code="TARGET_COLUMNS_ON_DIFFERENT_SCALES", severity="warning", where="loss",
        step=step,
        message=f"{loss} is taken over {len(stds)} target columns whose spreads differ "
                f"{fmt(ratio)}x: column {wide} varies by {fmt(stds[wide])}, column {narrow} "
                f"by {fmt(stds[narrow])}. The wide column's squared errors outweigh the "
                "narrow one's by the square of that, so the loss and the shared layers "
                "serve the wide column and the narrow one is barely learned.",
        evidence={"column_stds": [float(s) for s in stds], "ratio": float(ratio),
                  "widest": wide, "narrowest": narrow, "loss": loss,
                  "steps": sorted({row[0] for row, _ in judged})},
        fix="Standardise each target column with its own training mean and std (and undo it "
            "on the predictions), or weight each column's loss by 1 / its variance.")
