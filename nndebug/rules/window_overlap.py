"""VALIDATION_WINDOWS_OVERLAP_TRAINING: the model is validated on windows of a series that
are its training windows shifted by a step or a few.

Sliding windows cut from one series overlap their neighbours in all but a few steps.
Shuffled before the train/validation split (``train_test_split`` on the windows, a random
``validation_split``, ``random_split`` of a windowed dataset), nearly every validation
window has a neighbour in the training set: the validation loss then measures interpolation
between windows the model was trained on, not a forecast of a stretch of time it never saw,
and it flatters the model (and every choice made on it). A split in time leaves only the
windows at the boundary overlapping: at a shift of s steps, at most s on each side of it.
Public reports: "Data leakage train test split",
https://github.com/Y-debug-sys/Diffusion-TS/issues/67 ("You first create sliding windows and
then you shuffle them. But due to the overlap between the windows you model has information
about all the samples in the test set"); "there's data leak in your code",
https://github.com/yuxiangalvin/DeepLOB-Model-Implementation-Project/issues/1 ("In my
dataset, I found if disable shuffle, the performance will drop a lot").

Read from ``run.observed.window_overlap`` (``monitor/window_overlap.py``): the evaluation
rows that equal a kept training row shifted by 1..8 steps, and those equal to a training
row outright. An evaluation on training rows themselves (a training-accuracy pass) matches
its shifted neighbours too, but also itself: that is left alone.
"""
from ..findings import Finding
from .graph import rule

BOUNDARY_PER_SHIFT = 2      # [design] windows a split in time leaves overlapping at a shift
                            # of s steps: s on each side of a boundary (a validation stretch
                            # between two training stretches has two)
OVERLAP_MARGIN = 6          # [design] matched rows beyond that allowance before it counts
EXACT_MATCH_SHARE = 0.25    # [design] evaluation rows equal to training rows outright, as a
                            # share of the shifted matches, above which the evaluation runs
                            # on training data (a training-accuracy pass), not a leak
MIN_WINDOW_ROWS = 20        # [design] evaluation rows compared before a verdict


def overlapping_shift(overlap):
    """``(axis, shift, matched)`` of the shift whose matches exceed a split in time's
    boundary the most, when they exceed it by OVERLAP_MARGIN and the evaluation rows are not
    the training rows themselves; else None."""
    if not overlap or overlap.get("rows", 0) < MIN_WINDOW_ROWS:
        return None
    best = max(overlap.get("shifted") or [(0, 0, 0)],
               key=lambda found: found[2] - BOUNDARY_PER_SHIFT * found[1])
    axis, shift, matched = best
    if shift < 1 or matched < BOUNDARY_PER_SHIFT * shift + OVERLAP_MARGIN:
        return None
    if overlap.get("exact", 0) > EXACT_MATCH_SHARE * matched:
        return None
    return axis, shift, matched


@rule(produces="VALIDATION_WINDOWS_OVERLAP_TRAINING", explains={"OVERFITTING"})
def validation_windows_overlap_training(ctx):
    overlap = getattr(getattr(ctx.run, "observed", None), "window_overlap", None)
    found = overlapping_shift(overlap)
    if found is None:
        return None
    axis, shift, matched = found
    rows = overlap["rows"]
    return Finding(
        code="VALIDATION_WINDOWS_OVERLAP_TRAINING", severity="warning", step=None,
        message=f"{matched} of {rows} validation windows are training windows shifted by "
                f"{shift} step(s) (along input axis {axis}): the windows were shuffled "
                "before the train/validation split, so the validation set lies between "
                "training windows that overlap it, and the validation loss measures "
                "interpolation between trained windows, not a forecast of unseen time.",
        evidence={"matched": matched, "rows": rows, "shift": shift, "axis": axis,
                  "exact": overlap.get("exact", 0),
                  "train_rows": overlap.get("train_rows", 0)},
        fix="Split the series in time first (the last stretch validates, with a gap of a "
            "window's length), then cut windows and shuffle the training windows only "
            "(sklearn's train_test_split(..., shuffle=False) or TimeSeriesSplit).")
