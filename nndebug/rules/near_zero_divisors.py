"""LOSS_DIVIDED_BY_NEAR_ZERO: the loss divides each element by a constant (a target, a
per-row scale) some of whose values are zero or nearly so
(``run.observed.near_zero_divisors``, ``monitor/near_zero_divisors.py``).

Dividing row i's error by d_i weighs it by 1 / d_i. When the smallest divisors are
``NEAR_ZERO_DIVISOR_SPREAD`` times or more below the typical one, those few rows rule the
loss and its gradient: a mean absolute percentage error on targets that are often 0,
clipped at 1e-7 as Keras does, weighs each zero-target row ten million times a row whose
target is 1, and the model learns to predict about 0 for everything. Public report: "mape
loss if the lable is 0", https://github.com/keras-team/keras/issues/2908 ("when the lable
is 0, I think the error is not important and i dont count it").
"""
from ..findings import Finding
from .context import fmt, observed_list
from .graph import rule

NEAR_ZERO_DIVISOR_SPREAD = 1000.0   # [design] median |divisor| over the smallest: those rows
                                    # weigh 1000x a typical one; per-row counts (sequence
                                    # lengths 1..200) stay within ~200x, targets of one
                                    # unit far above zero within ~20x; the planted MAPE's
                                    # clipped zeros are ~1e8 below


def _spread(row):
    _, _, smallest, median = row
    if median <= 0:
        return 0.0                   # most divisors are 0: the loss is not finite anyway
    return float("inf") if smallest <= 0 else median / smallest


@rule(produces="LOSS_DIVIDED_BY_NEAR_ZERO")
def loss_divided_by_near_zero(ctx):
    rows = [row for row in observed_list(ctx, "near_zero_divisors")
            if _spread(row) >= NEAR_ZERO_DIVISOR_SPREAD]
    if not rows:
        return None
    step, elements, smallest, median = rows[0]
    return Finding(
        code="LOSS_DIVIDED_BY_NEAR_ZERO", severity="warning", where="loss", step=step,
        message=f"The loss divides each of {elements} elements by a constant (a target, a "
                f"per-row scale) whose typical magnitude is {fmt(median)} but whose "
                f"smallest is {fmt(smallest)}: those rows weigh {fmt(_spread(rows[0]))}x a "
                "typical row, so they rule the loss and its gradient (a percentage error on "
                "targets at or near zero, kept finite by a clip or an epsilon) and the rest "
                "of the data is barely fitted.",
        evidence={"elements": elements, "smallest": smallest, "median": median,
                  "spread": _spread(rows[0]), "steps": sorted({row[0] for row in rows})},
        fix="Leave the zero and near-zero rows out of a percentage error (divide by y[keep] "
            "for keep = y.abs() > a floor that means something in the data's units), clamp "
            "the divisor at such a floor rather than at 1e-7, or train on an error that does "
            "not divide by each target (MAE or MSE on standardised targets, sMAPE).")
