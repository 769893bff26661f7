"""INPUT_ROWS_STANDARDISED: the table that reaches the model was standardised along the
wrong axis - each ROW centred and scaled by its own mean and std over the features - so
features in different units lost what they measure.

``(x - x.mean(axis=1)) / x.std(axis=1)`` (or a scaler fitted on ``X.T``) where axis 0 was
meant: the largest-unit columns decide every row's mean and std, the small ones are
squashed into a sliver around one value and mixed with the large ones, and the model
learns little from any of them. Public report: "Bug fix related to #19",
https://github.com/EpistasisLab/scikit-rebate/pull/20 ("The `pre_normalize` function was
normalizing based on rows rather than columns").

Read from ``run.observed.row_standardised_inputs`` (``monitor/row_standardised_inputs.py``):
every row of the first training tables has mean 0 and std 1 over its features, and most of
the values' variance lies between the columns' levels (each column near its own value in
every row, as columns in different units are after such a scaling; a per-image
standardisation of flattened digits keeps half of it within the columns). Standardising
each sample is also done on purpose (a spectrum's standard normal variate), and its tables
look the same, so this is a warning only when learning was poor, else info.
"""
from ..findings import Finding
from .curve import learning_poor
from .graph import rule

STANDARDISED_SHARE = 0.99    # [design] rows of the kept tables with mean 0 and std 1: all of
                             # them, give or take a constant row (std 0 stays unscaled)
BETWEEN_COLUMN_SHARE = 0.75  # [measured] share of the variance between the columns' levels:
                             # 0.92-0.94 for a house-price table of 8 columns in their own
                             # units standardised per row (four draws), 0.50 for the digits'
                             # 64 pixels standardised per image


def standardised_rows(rows):
    """(rows, features, between-column share) pooled over the kept tables when every one of
    them reads as standardised per row; else None."""
    if not rows:
        return None
    total = sum(r[1] for r in rows)
    standardised = sum(r[3] for r in rows)
    if total < 1 or standardised < STANDARDISED_SHARE * total:
        return None
    share = min(r[4] for r in rows)
    if share < BETWEEN_COLUMN_SHARE:
        return None
    return total, rows[0][2], share


@rule(produces="INPUT_ROWS_STANDARDISED")
def input_rows_standardised(ctx):
    found = standardised_rows(getattr(getattr(ctx.run, "observed", None),
                                      "row_standardised_inputs", None))
    if found is None:
        return None
    rows, features, share = found
    poor = learning_poor(ctx)
    return Finding(
        code="INPUT_ROWS_STANDARDISED", severity="warning" if poor else "info",
        where="inputs", step=None,
        message=f"Every one of the {rows} input rows read has mean 0 and std 1 over its "
                f"{features} features: the table was standardised per row (axis=1), not per "
                f"column. {share:.0%} of its values' variance lies between the columns' "
                "levels, as when the features are in different units: the largest decide "
                "each row's mean and std, and the others are squashed into a sliver"
                + (", and learning was poor." if poor else
                   ". (Standardising each sample is right for a spectrum or an image.)"),
        evidence={"rows": rows, "features": features, "between_column_share": share,
                  "learning_poor": poor},
        fix="Standardise each feature (column) with the training rows' statistics: "
            "(x - x_train.mean(axis=0)) / x_train.std(axis=0), or StandardScaler().fit("
            "X_train) then .transform() on every split; not x.mean(axis=1).")
