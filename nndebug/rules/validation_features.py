"""A table model evaluated on columns that are not the ones it trains on, read column by
column from ``run.observed.feature_moments`` (``monitor/feature_moments.py``: per-column
means and spreads of the first training batches and of the first validation passes).

VALIDATION_COLUMNS_REORDERED: the validation columns hold the training columns' values, but
in another order. Held-out rows drawn like the training rows have every column's mean
within sampling noise of the training mean of the SAME column. When the columns came in
another order (a held-out frame rebuilt with its columns sorted by name, feature columns
picked through a set, one-hot dummies made on the test rows alone with a missing category
appended last) many columns sit far from their own training mean, yet each sits close to
the training mean of SOME column: pairing the two sets of means by rank (the best pairing
of two lists of numbers) leaves gaps no larger than sampling noise. A real shift of the data (another
source, a skewed class mix, inputs left unscaled) moves columns that no re-pairing brings
back; that is left to other rules. Public reports: "Potential error caused by different
column order", https://github.com/scikit-learn/scikit-learn/issues/7242; "Adding correction
to X_test", https://github.com/Yorko/mlcourse.ai/pull/690; "Don't jumble column order in
Epinano_Predict", https://github.com/novoalab/EpiNano/pull/119.

VALIDATION_SCALED_ON_ITSELF: every varying column of the validation inputs has mean 0 and
standard deviation 1 to rounding: the held-out rows were standardised with their own
statistics (``fit_transform`` on the test set). Held-out rows scaled with the training
scaler have column means off 0 by sampling noise (about 1/sqrt(rows)), never all exactly
0; a scaler fitted on them erases any way in which they differ from the training data, and
moves every column by the wrong amount. Public report: "Fixed transformation of test set
via RobustScaler in example", https://github.com/scikit-learn/scikit-learn/pull/5800.
(Evaluating on the training rows themselves, standardised as one set, would look the same;
a validation loss is meant to be measured on held-out rows.)
"""
import numpy as np

from ..findings import Finding
from .context import observed_list
from .graph import rule

Z_FAR = 6.0               # [design] a column mean this many standard errors from the
                          # training mean is not sampling noise (held-out twins of the
                          # benchmark stay below 4.5; misaligned columns reach 15-90)
MIN_FAR_COLUMNS = 2       # [design] a reordering moves at least two columns
REPAIRED_Z2 = 1.0         # [design] after pairing by rank, the mean squared standard error
                          # of the column gaps is at most what two samples of the same
                          # columns give (1; the pairing can only lower it): measured 0.2-0.5
                          # on the reordered benchmark cases, 2.2-10 on held-out sets of a
                          # skewed class mix, whose moves no re-pairing explains
MIN_VALIDATION_ROWS = 20  # [design] rows a validation pass must hold to be judged
MEAN_EXACT = 1e-4         # [design] a column mean of 0 up to float32 rounding of the sums
STD_EXACT = 1e-3          # [design] a spread of 1, population or sample (n - 1) convention
OWN_SHARE = 0.95          # [design] share of the varying columns that must be exact
MIN_VARYING = 2           # [design] varying columns needed to judge


def _moments(ctx):
    """(training moments, first validation moments) as NumPy arrays, or None."""
    rows = observed_list(ctx, "feature_moments")
    train = next((r for r in rows if r[0] == "train"), None)
    valid = next((r for r in rows if r[0] == "validation"), None)
    if train is None or valid is None or len(train[3]) != len(valid[3]):
        return None
    if valid[2] < MIN_VALIDATION_ROWS or train[2] < MIN_VALIDATION_ROWS:
        return None
    as_array = [(r[1], r[2], np.asarray(r[3], float), np.asarray(r[4], float))
                for r in (train, valid)]
    if not all(np.isfinite(m).all() and np.isfinite(s).all() for _, _, m, s in as_array):
        return None
    return as_array


def _gaps(mean_t, std_t, rows_t, mean_v, std_v, rows_v):
    """Each pair of column means' gap in standard errors of that gap."""
    error = np.sqrt(std_t ** 2 / rows_t + std_v ** 2 / rows_v)
    return np.abs(mean_v - mean_t) / np.maximum(error, 1e-12)


@rule(produces="VALIDATION_COLUMNS_REORDERED", explains={"OVERFITTING"})
def validation_columns_reordered(ctx):
    moments = _moments(ctx)
    if moments is None:
        return None
    (_, rows_t, mean_t, std_t), (step, rows_v, mean_v, std_v) = moments
    far = _gaps(mean_t, std_t, rows_t, mean_v, std_v, rows_v) > Z_FAR
    if far.sum() < MIN_FAR_COLUMNS:
        return None
    by_t, by_v = np.argsort(mean_t, kind="stable"), np.argsort(mean_v, kind="stable")
    repaired = _gaps(mean_t[by_t], std_t[by_t], rows_t, mean_v[by_v], std_v[by_v], rows_v)
    if np.mean(repaired ** 2) > REPAIRED_Z2:
        return None
    columns = [int(c) for c in np.flatnonzero(far)]
    shown = ", ".join(str(c) for c in columns[:8]) + (", ..." if len(columns) > 8 else "")
    return Finding(
        code="VALIDATION_COLUMNS_REORDERED", severity="warning", where="inputs", step=int(step),
        message=(f"{len(columns)} of the {len(mean_t)} input columns of the validation pass "
                 f"at step {step} sit far from their own training means (columns {shown}), "
                 "yet every validation column's mean matches some training column's: the "
                 "validation table holds the training columns in another order, and the "
                 "model reads each one as another feature."),
        evidence={"columns": len(mean_t), "far_columns": columns,
                  "mean_squared_gap_after_pairing": float(np.mean(repaired ** 2)),
                  "validation_rows": int(rows_v)},
        fix=("build the evaluation table with the training columns in the training order "
             "(X_test = X_test[X_train.columns]; one-hot encode with one encoder fitted on "
             "the training rows, or reindex the test dummies to the training ones)"))


@rule(produces="VALIDATION_SCALED_ON_ITSELF", explains={"OVERFITTING"})
def validation_scaled_on_itself(ctx):
    moments = _moments(ctx)
    if moments is None:
        return None
    _, (step, rows_v, mean_v, std_v) = moments
    varying = std_v > STD_EXACT
    if varying.sum() < MIN_VARYING:
        return None
    sample_std = np.sqrt(rows_v / (rows_v - 1.0))      # a sample-std scaler's population std
    centred = np.abs(mean_v[varying]) <= MEAN_EXACT
    unit = (np.abs(std_v[varying] - 1.0) <= STD_EXACT) | \
        (np.abs(std_v[varying] * sample_std - 1.0) <= STD_EXACT)
    if centred.mean() < OWN_SHARE or unit.mean() < OWN_SHARE:
        return None
    return Finding(
        code="VALIDATION_SCALED_ON_ITSELF", severity="warning", where="inputs", step=int(step),
        message=(f"Every varying input column of the validation pass at step {step} "
                 f"({int(varying.sum())} columns, {rows_v} rows) has mean 0 and standard "
                 "deviation 1 to rounding: the validation rows were standardised with their "
                 "own statistics, not the training ones. Held-out rows put through the "
                 "training scaler keep means off 0 by sampling noise; a scaler fitted on them "
                 "moves every column by statistics the model never saw."),
        evidence={"varying_columns": int(varying.sum()), "validation_rows": int(rows_v),
                  "largest_mean": float(np.abs(mean_v[varying]).max())},
        fix=("fit the scaler on the training rows only and apply it to the held-out rows: "
             "scaler.fit_transform(X_train), then scaler.transform(X_test)"))
