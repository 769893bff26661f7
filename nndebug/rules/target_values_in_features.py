"""FEATURE_HOLDS_TARGET_VALUES: an input column equals the row's continuous target, to the
last bit, in ``FEATURE_MATCH_SHARE`` of the rows or more, but not in all of them
(``run.observed.target_value_matches``, ``monitor/target_values_in_features.py``).

Such a column was computed from the target: a median, maximum or minimum over a window
that holds the value to predict (a rolling window centred on the row, or a library's
"trailing" window that looks ahead). In a forecast the model then reads the future:
validation promises what no live prediction can deliver. Public report: "`rolling_median`
leaks future data", https://github.com/pola-rs/polars/issues/29170 ("`rolling_median`
should only look at previous rows"; a 3-row median that includes the next row equals it
in about a third of the rows).

The batches read are pooled (a share of about a third wanders from batch to batch), and
the same column must be the best match in each; a column equal to the target in every row
is the target column left among the features (TARGETS_IN_INPUTS, from the dependency
checks) and is not named twice.
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
    return sum(row[3] for row in rows) / total if total else 0.0


@rule(produces="FEATURE_HOLDS_TARGET_VALUES")
def feature_holds_target_values(ctx):
    rows = observed_list(ctx, "target_value_matches")
    if not rows or len({row[2] for row in rows}) != 1:
        return None                      # no batch read, or no one column in all of them
    share = _share(rows)
    if not FEATURE_MATCH_SHARE <= share < 1.0:
        return None
    step, _, column, _ = rows[0]
    matches, read = sum(row[3] for row in rows), sum(row[1] for row in rows)
    return Finding(
        code="FEATURE_HOLDS_TARGET_VALUES", severity="warning", where="inputs", step=step,
        message=f"Input column {column} equals the row's target exactly in {matches} of "
                f"{read} rows read ({share:.0%}): a continuous target does not match a "
                "feature to the last bit by chance, so the column was computed from the "
                "target - a median, maximum or minimum over a window that holds the value "
                "to predict (a rolling window centred on the row, or one that looks ahead). "
                "The model reads the answer in training; live, that value is not known yet.",
        evidence={"column": column, "rows": read, "matches": matches, "share": share,
                  "steps": sorted({row[0] for row in rows})},
        fix="Compute window features from the rows known at prediction time only: a "
            "trailing window that ends at the row (rolling(w) without center=True, or "
            "shifted by one so it ends before the target's row), and check that feature "
            "t never depends on the value at t + 1.")
