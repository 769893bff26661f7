"""SCALER_FIT_ON_HELD_OUT_ROWS: the inputs were min-max scaled with a range taken over the
held-out rows too (the scaler fitted before the split), so the validation data set the
scale of what the model trains on.

``MinMaxScaler().fit_transform(series)`` and only then the cut into a training and a
validation stretch: the scaler's minimum and maximum come from every row. On a series that
rises (or falls) into its validation stretch, the training inputs then stop short of one
end of the [0, 1] range and the validation inputs end exactly on it: the held-out period
decided how the training data is scaled, and the validation error is measured inside a
range it helped choose, which no forecast of unseen data enjoys. Public report: "Darts
Examples- NBeats", https://github.com/unit8co/darts/issues/573 ("you have scaled first ...
and then in Cell 6 split the series into train and val ... wont this introduce Data
Leakage (shouldn't we split first and then scale)"; the maintainer: "You are correct about
the scaling").

Read from ``run.observed.input_ranges`` (``monitor/input_ranges.py``): the lowest and
highest input of the first training forwards and of the first validation passes. Named
when both lie inside a min-max range ([0, 1] or [-1, 1]), the training inputs reach one end
of it exactly (so the scale is a fitted minimum and maximum) and stop RANGE_GAP of the
range short of the other, and the validation inputs reach that other end exactly. A scaler
fitted on the training rows puts the training inputs on both ends (validation inputs then
pass beyond them, or fall inside without touching an end); a fixed scale (pixels / 255)
has training inputs on both ends too.
"""
from ..findings import Finding
from .context import observed_list
from .graph import rule

SCALED_RANGES = ((0.0, 1.0), (-1.0, 1.0))   # [design] MinMaxScaler's default feature_range and
                                            # the (-1, 1) of many recurrent-model tutorials
END_TOLERANCE = 1e-6         # [design] an input "on" an end of the range, as a share of its
                             # width (float32 rounding of a fitted minimum/maximum: ~1e-7)
RANGE_GAP = 0.01             # [design] share of the range the training inputs stop short of
                             # the end the validation inputs reach: a training set that holds
                             # the extreme row reaches it (gap 0); the planted case's training
                             # stretch stops 0.043 short (0.115 on the batches read). The
                             # evidence is the validation's exact hit; this keeps near-ties out


def _pooled(rows, kind):
    """(lowest, highest) over the rows of one kind, or None."""
    kept = [r for r in rows if r[0] == kind]
    if not kept:
        return None
    return min(r[3] for r in kept), max(r[4] for r in kept)


def scale_set_by_held_out(rows):
    """(low end, high end, the end only validation reaches, training (low, high), validation
    (low, high)) when the validation inputs reach an end of a min-max range the training
    inputs stop short of; else None."""
    training, validation = _pooled(rows, "training"), _pooled(rows, "validation")
    if training is None or validation is None:
        return None
    for low, high in SCALED_RANGES:
        width = high - low
        tol = END_TOLERANCE * width
        inside = all(low - tol <= v <= high + tol for v in (*training, *validation))
        if not inside:
            continue
        on = lambda value, end: abs(value - end) <= tol      # noqa: E731
        if on(training[0], low) and training[1] <= high - RANGE_GAP * width \
                and on(validation[1], high):
            return low, high, high, training, validation
        if on(training[1], high) and training[0] >= low + RANGE_GAP * width \
                and on(validation[0], low):
            return low, high, low, training, validation
    return None


@rule(produces="SCALER_FIT_ON_HELD_OUT_ROWS")
def scaler_fit_on_held_out_rows(ctx):
    found = scale_set_by_held_out(observed_list(ctx, "input_ranges"))
    if found is None:
        return None
    low, high, end, training, validation = found
    return Finding(
        code="SCALER_FIT_ON_HELD_OUT_ROWS", severity="warning", where="inputs", step=None,
        message=f"The inputs lie in a min-max range [{low:g}, {high:g}] whose "
                f"{'top' if end == high else 'bottom'} ({end:g}) only the validation inputs "
                f"reach, exactly (validation {validation[0]:.4g} to {validation[1]:.4g}; "
                f"training {training[0]:.4g} to {training[1]:.4g} on the first training "
                "batches, on the other end exactly): the scaler's minimum and maximum were "
                "taken over the held-out rows too, fitted before the split. The held-out "
                "stretch set the scale of the training data, and the validation error is "
                "measured inside a range it helped choose.",
        evidence={"range": [low, high], "training": list(training),
                  "validation": list(validation)},
        fix="Split first (in time, for a series), fit the scaler on the training rows only "
            "(scaler.fit(train)), then transform every split with it; validation inputs may "
            "then pass beyond the range, as unseen data will.")
