"""FEATURE_HOLDS_TARGET_VALUES: an input value equals the row's continuous target, to the
last bit, in ``FEATURE_MATCH_SHARE`` of the rows or more
(``run.observed.target_value_matches``, ``monitor/target_values_in_features.py``).

Such a column was computed from the target: a median, maximum or minimum over a window
that holds the value to predict (a rolling window centred on the row, or a library's
"trailing" window that looks ahead). In a forecast the model then reads the future:
validation promises what no live prediction can deliver. Public report: "`rolling_median`
leaks future data", https://github.com/pola-rs/polars/issues/29170 ("`rolling_median`
should only look at previous rows"; a 3-row median that includes the next row equals it
in about a third of the rows).

A window ``(rows, steps, features)`` one of whose positions equals the target in every row
ends on the value it is asked to predict (cut one step too long): named too. The batches
read are pooled (a share of about a third wanders from batch to batch), and the same
column must be the best match in each; a table's column equal to the target in every row
is the target column left among the features (TARGETS_IN_INPUTS, from the dependency
checks on tables) and is not named twice.
"""
from ..findings import Finding
from .context import observed_list
from .graph import rule

FEATURE_MATCH_SHARE = 0.2   # [design] share of the rows read whose feature equals the
                            # continuous target exactly: chance gives ~0 (targets are >= 90%
                            # distinct); a median of 3 rows that holds the target ~1/3
                            # (measured on the planted case: 25 of 96 rows)


def _share(rows):
    """Rows where the column equals the target, over the rows read (batches pooled)."""
    total = sum(row[1] for row in rows)
    return sum(row[4] for row in rows) / total if total else 0.0


def _place(row_shape, column):
    """Where the column lies in a row: 'input column c', or 'window step t, feature f'."""
    if len(row_shape) == 1:
        return f"input column {column}"
    step, feature = divmod(column, row_shape[1])
    return f"window step {step} of {row_shape[0]}, feature {feature}"


@rule(produces="FEATURE_HOLDS_TARGET_VALUES")
def feature_holds_target_values(ctx):
    rows = observed_list(ctx, "target_value_matches")
    if not rows or len({(tuple(row[2]), row[3]) for row in rows}) != 1:
        return None                      # no batch read, or no one column in all of them
    share = _share(rows)
    step, _, row_shape, column, _ = rows[0]
    window = len(row_shape) == 2
    if share < FEATURE_MATCH_SHARE or (share >= 1.0 and not window):
        return None                      # a table's full copy: TARGETS_IN_INPUTS (module doc)
    matches, read = sum(row[4] for row in rows), sum(row[1] for row in rows)
    if share >= 1.0:
        cause = ("the window ends on the value it is asked to predict (cut one step too "
                 "long, or its target taken one step early)")
        fix = ("Cut each window from the values before its target only: inputs = "
               "series[i:i + W], target = series[i + W].")
    else:
        cause = ("the value was computed from the target - a median, maximum or minimum "
                 "over a window that holds the value to predict (a rolling window centred on "
                 "the row, or one that looks ahead)")
        fix = ("Compute window features from the rows known at prediction time only: a "
               "trailing window that ends at the row (rolling(w) without center=True, or "
               "shifted by one so it ends before the target's row), and check that feature "
               "t never depends on the value at t + 1.")
    return Finding(
        code="FEATURE_HOLDS_TARGET_VALUES", severity="warning", where="inputs", step=step,
        message=f"The {_place(row_shape, column)} equals the row's target exactly in {matches} "
                f"of {read} rows read ({share:.0%}): a continuous target does not match an "
                f"input to the last bit by chance, so {cause}. The model reads the answer in "
                "training; live, that value is not known yet.",
        evidence={"column": column, "row_shape": list(row_shape), "rows": read,
                  "matches": matches, "share": share, "steps": sorted({row[0] for row in rows})},
        fix=fix)
