"""Look at the data before training on it: ``check_data(x_train, y_train, x_test, y_test)``.

Many "the network does not learn" and "the test score is too good to be true" bugs are
data bugs, invisible from the training loop: NaNs that turn the first loss into NaN,
pixels left in 0..255, a column that is constant because it failed to load, test samples
copied into the training set, a class that is 50 times rarer than the others.

Every finding carries counts and a few example indices in ``.evidence`` so the rows can
be looked at directly. Arrays may be NumPy arrays, torch tensors or minigrad tensors.

The codes (``docs/codes.md`` lists every code nndebug gives):

- NAN_IN_DATA: NaN or Inf values in a split.
- NOT_NORMALIZED: features far from unit scale (pixels left in 0..255), or of scales
  that differ by orders of magnitude.
- CONSTANT_FEATURES: columns with one value in every training row (a failed load, a
  placeholder).
- SPLITS_SCALED_DIFFERENTLY: train and test scaled differently (one normalised, the other
  not).
- CLASS_IMBALANCE: the commonest class 10 or more times the rarest, or one class only.
- CLASSES_MISSING_FROM_TRAIN: test labels that never occur in training.
- DUPLICATES_ACROSS_SPLITS: test samples that are exact copies of training samples.
- NEAR_DUPLICATES_ACROSS_SPLITS: test samples that are near-copies of training samples
  (augmented or re-encoded).
- DUPLICATES_WITHIN_TRAIN: training samples that repeat earlier ones exactly (they weigh
  double in the loss).
"""
import contextlib
import math
import warnings

import numpy as np

from ..findings import Finding, sort_findings

# --- thresholds (each one named once, with the reason for its value) ------------------------
IMBALANCE_RATIO = 10.0
"""Most common class over least common: beyond 10:1 a classifier can score well by ignoring
the rare class (the issue's threshold; imbalanced-learn's docs call 1:10 'moderate')."""
LARGE_SCALE = 5.0
"""Typical feature RMS above this (e.g. pixels 0..255, digits 0..16): default initialisations
assume inputs of order 1, and the first layer's pre-activations grow with the input scale."""
HUGE_FEATURE = 10.0
"""Any single feature with RMS above this is flagged, even if most features are fine."""
TINY_SCALE = 0.01
"""Typical feature RMS below this: signals vanish under initialisations made for unit scale."""
SCALE_SPREAD = 100.0
"""Largest over median feature standard deviation: features on very different scales make the
loss surface badly conditioned (SGD crawls along the small-scale directions)."""
SPLIT_SCALE_RATIO = 3.0
"""Test RMS over train RMS (or the inverse) beyond this: one split was scaled and the other not."""
NEAR_DUPLICATE_FRACTION = 0.02
"""A test row whose nearest training row lies closer than this fraction of the median
nearest-neighbour distance is a near-duplicate (e.g. the same image with a little noise)."""
NEAR_DUPLICATE_MIN_FEATURES = 8
"""Below this many features, nearest-neighbour distances spread so widely that genuinely
distinct samples land that close by chance; the near-duplicate check is skipped."""
NEAR_DUPLICATE_BUDGET = 20_000_000
"""Distance computations (test rows x train rows) spent at most; larger sets are sampled."""
NEAR_DUPLICATE_MAX_TRAIN = 50_000
"""Training rows compared at most (a random sample beyond that), to bound memory."""
MAX_EXAMPLES = 5


def check_data(x_train, y_train, x_test=None, y_test=None):
    """Check a data set for the problems that silently spoil training or evaluation.

    Returns a list of ``Finding`` (most severe first): ``NAN_IN_DATA``,
    ``CONSTANT_FEATURES``, ``NOT_NORMALIZED``, ``SPLITS_SCALED_DIFFERENTLY``,
    ``CLASS_IMBALANCE``, ``CLASSES_MISSING_FROM_TRAIN``, ``DUPLICATES_ACROSS_SPLITS``,
    ``NEAR_DUPLICATES_ACROSS_SPLITS`` and ``DUPLICATES_WITHIN_TRAIN`` (info). Healthy data
    gives no finding of severity "warning" or "error".

    ``x``: one row per sample (any trailing shape; images are flattened into features).
    ``y``: class indices, one-hot rows, or regression targets (class checks are skipped).
    """
    x_train = _as_array(x_train, "x_train")
    y_train = _as_array(y_train, "y_train", labels=True)
    x_test = None if x_test is None else _as_array(x_test, "x_test")
    y_test = None if y_test is None else _as_array(y_test, "y_test", labels=True)
    y_train, y_test = _encode_labels(y_train, y_test)
    _check_shapes(x_train, y_train, x_test, y_test)

    findings = []
    for name, array in (("x_train", x_train), ("y_train", y_train), ("x_test", x_test),
                        ("y_test", y_test)):
        if array is not None:
            findings += _non_finite(name, array)
    train_rows = _rows(x_train)
    test_rows = None if x_test is None else _rows(x_test)
    findings += _constant_features(train_rows)
    train_stats = _feature_stats(train_rows)      # each split's statistics, computed once
    findings += _scale(train_rows, train_stats, "x_train")
    if test_rows is not None:
        test_stats = _feature_stats(test_rows)
        findings += _scale(test_rows, test_stats, "x_test")
        findings += _split_scales(train_rows, test_rows, train_stats, test_stats)
    findings += _classes(y_train, y_test)
    train_keys = _row_keys(train_rows)            # hashed once for both duplicate checks
    if test_rows is not None:
        findings += _duplicates_across(train_rows, test_rows, train_keys, y_train, y_test)
    findings += _duplicates_within(train_keys)
    return sort_findings(findings)


# --- input handling ----------------------------------------------------------------------------

def _encode_labels(y_train, y_test):
    """Class names ("cat", "dog") become class indices, shared by both splits, so the class
    checks run on them; numeric labels are returned as they are."""
    named = [y for y in (y_train, y_test) if y is not None and y.dtype.kind in "USO"]
    if not named:
        return y_train, y_test
    try:
        classes = np.unique(np.concatenate([y.reshape(-1) for y in named]).astype(str))
    except Exception as error:   # e.g. an object array of unorderable values
        raise TypeError(f"class labels must be numbers or strings, got values that cannot be "
                        f"sorted ({error}); convert them to class indices first") from None

    def encode(y):
        if y is None or y.dtype.kind not in "USO":
            return y
        if y.ndim != 1:
            raise ValueError(f"string class labels must be one per sample (1-D), got shape "
                             f"{y.shape}")
        return np.searchsorted(classes, y.astype(str)).astype(np.int64)

    return encode(y_train), encode(y_test)


def _as_array(value, name, labels=False):
    """A NumPy view of a NumPy array, a torch tensor or a minigrad tensor (no copy where possible).
    With ``labels=True`` strings are accepted too (class names)."""
    module = type(value).__module__ or ""
    if module.startswith("torch"):
        value = value.detach().cpu().numpy()
    elif module.startswith("minigrad") and hasattr(value, "data"):
        value = value.data
    try:
        array = np.asarray(value)
    except Exception as error:
        raise TypeError(f"{name} must be an array-like (NumPy array, torch or minigrad tensor), "
                        f"got {type(value).__name__}: {error}") from None
    if array.dtype.kind not in ("biufUSO" if labels else "biuf"):
        raise TypeError(f"{name} must hold numbers, got dtype {array.dtype} ({type(value).__name__});"
                        " convert it to a numeric array first")
    if array.ndim == 0:
        raise ValueError(f"{name} must have one entry per sample, got a scalar")
    if len(array) == 0:
        raise ValueError(f"{name} is empty (shape {array.shape}): give at least one sample"
                         + (", or leave the test split out (None)" if "test" in name else ""))
    return array


def _check_shapes(x_train, y_train, x_test, y_test):
    if len(x_train) != len(y_train):
        raise ValueError(f"x_train has {len(x_train)} samples but y_train has {len(y_train)}; "
                         "they must be paired row by row")
    if len(x_train) == 0:
        raise ValueError("x_train is empty; give at least one sample")
    if (x_test is None) != (y_test is None) and y_test is not None:
        raise ValueError("y_test given without x_test; pass both (or neither)")
    if x_test is not None:
        if x_test.shape[1:] != x_train.shape[1:]:
            raise ValueError(f"x_test rows have shape {x_test.shape[1:]} but x_train rows have "
                             f"{x_train.shape[1:]}; both splits must hold the same features")
        if y_test is not None and len(x_test) != len(y_test):
            raise ValueError(f"x_test has {len(x_test)} samples but y_test has {len(y_test)}")


def _rows(x):
    """Samples as float64 rows of features (images flattened)."""
    return x.reshape(len(x), -1).astype(np.float64, copy=False)


def _examples(indices):
    return [int(i) for i in np.asarray(indices).ravel()[:MAX_EXAMPLES]]


# --- the checks --------------------------------------------------------------------------------

def _non_finite(name, array):
    if array.dtype.kind != "f":
        return []
    bad = ~np.isfinite(array)
    if not bad.any():
        return []
    per_row = bad.reshape(len(array), -1).any(axis=1)
    n_nan, n_inf = int(np.isnan(array).sum()), int(np.isinf(array).sum())
    rows = np.flatnonzero(per_row)
    return [Finding(
        code="NAN_IN_DATA", severity="error", where=name,
        message=f"{name} holds {n_nan} NaN and {n_inf} infinite values in {len(rows)} of "
                f"{len(array)} samples; one of them makes the loss NaN.",
        evidence={"nan_count": n_nan, "inf_count": n_inf, "rows_affected": int(len(rows)),
                  "example_rows": _examples(rows)},
        fix="find where they come from (a division by zero, a failed parse, log of 0); drop or "
            "impute those rows before training")]


def _constant_features(rows):
    if len(rows) < 2 or rows.shape[1] == 0:
        return []
    with np.errstate(invalid="ignore"):
        constant = np.nanmax(rows, axis=0) == np.nanmin(rows, axis=0)
    n, total = int(constant.sum()), rows.shape[1]
    if n == 0:
        return []
    if n == total:
        severity, what = "error", "every feature is constant: the inputs carry no information"
    elif n > total / 2:
        severity, what = "warning", f"{n} of {total} features never change"
    else:
        severity, what = "info", f"{n} of {total} features never change (harmless for training, " \
                                 "but check they should)"
    index = np.flatnonzero(constant)
    return [Finding(
        code="CONSTANT_FEATURES", severity=severity, where="x_train",
        message=f"Across the training set {what}.",
        evidence={"constant_count": n, "feature_count": total, "example_features": _examples(index),
                  "values": [float(rows[0, i]) for i in index[:MAX_EXAMPLES]]},
        fix="check the loading/feature pipeline (a column of zeros is often a failed join); "
            "drop features that are constant")]


def _feature_stats(rows):
    """(mean, std, rms) of each feature over the finite values."""
    finite = np.where(np.isfinite(rows), rows, np.nan)
    with np.errstate(invalid="ignore"), _quiet():
        mean = np.nanmean(finite, axis=0)
        std = np.nanstd(finite, axis=0)
        rms = np.sqrt(np.nanmean(finite ** 2, axis=0))
    return mean, std, rms


@contextlib.contextmanager
def _quiet():
    """Silence 'mean of empty slice' for all-NaN features (reported by the NaN check)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        yield


def _scale(rows, stats, name):
    if rows.shape[1] == 0 or len(rows) < 2:
        return []
    mean, std, rms = stats
    varying = np.isfinite(std) & (std > 0)
    if not varying.any():
        return []
    typical = float(np.median(rms[varying]))
    worst = int(np.flatnonzero(varying)[np.argmax(rms[varying])])
    spread = float(np.max(std[varying]) / np.median(std[varying]))
    reasons = []
    if typical > LARGE_SCALE:
        reasons.append(f"a typical feature has RMS {typical:.3g} (want about 1)")
    elif rms[worst] > HUGE_FEATURE:
        reasons.append(f"feature {worst} has mean {mean[worst]:.3g} and std {std[worst]:.3g}")
    if typical < TINY_SCALE:
        reasons.append(f"a typical feature has RMS {typical:.2g}, far below 1")
    if spread > SCALE_SPREAD:
        reasons.append(f"feature scales differ by {spread:.0f}x")
    if not reasons:
        return []
    order = np.argsort(-np.where(varying, rms, -np.inf))[:MAX_EXAMPLES]
    finite = rows[np.isfinite(rows)]
    return [Finding(
        code="NOT_NORMALIZED", severity="warning", where=name,
        message=f"{name} is far from zero mean / unit scale: " + "; ".join(reasons) + ".",
        evidence={"typical_feature_rms": typical, "min": float(finite.min()), "max": float(finite.max()),
                  "mean": float(finite.mean()), "std": float(finite.std()), "scale_spread": spread,
                  "example_features": [int(i) for i in order],
                  "feature_means": [float(mean[i]) for i in order],
                  "feature_stds": [float(std[i]) for i in order]},
        fix="standardise with statistics of the training set: x = (x - mean) / std per feature "
            "(or divide pixels by their maximum), and apply the same to the test set")]


def _split_scales(train_rows, test_rows, train_stats, test_stats):
    if len(test_rows) < 2 or train_rows.shape[1] == 0:
        return []
    *_, rms_train = train_stats
    *_, rms_test = test_stats
    both = np.isfinite(rms_train) & np.isfinite(rms_test) & (rms_train > 0) & (rms_test > 0)
    if not both.any():
        return []
    ratio = float(np.median(rms_test[both] / rms_train[both]))
    if 1 / SPLIT_SCALE_RATIO <= ratio <= SPLIT_SCALE_RATIO:
        return []
    return [Finding(
        code="SPLITS_SCALED_DIFFERENTLY", severity="warning", where="x_test",
        message=f"Test features are typically {ratio:.3g}x the size of the training features: "
                "one split was normalised and the other was not.",
        evidence={"median_rms_ratio_test_over_train": ratio},
        fix="apply exactly the same preprocessing (with the training set's statistics) to both splits")]


def _class_labels(y):
    """Integer class labels, or None when y looks like regression targets."""
    if y.ndim == 2 and y.shape[1] > 1:
        if y.dtype.kind in "biu" or (np.all(np.isfinite(y)) and np.all((y == 0) | (y == 1))
                                     and np.all(y.sum(axis=1) == 1)):
            return np.argmax(y, axis=1) if np.all(y.sum(axis=1) == 1) else None
        return None
    flat = y.reshape(len(y), -1)
    if flat.shape[1] != 1:
        return None
    flat = flat[:, 0]
    if flat.dtype.kind in "biu":
        return flat.astype(np.int64)
    finite = flat[np.isfinite(flat)]
    if finite.size and np.all(finite == np.round(finite)) and len(np.unique(finite)) <= 2:
        return np.where(np.isfinite(flat), flat, -1).astype(np.int64)  # binary 0./1. labels (BCE)
    return None


def _classes(y_train, y_test):
    labels = _class_labels(y_train)
    if labels is None:
        return []
    classes, counts = np.unique(labels[labels >= 0], return_counts=True)
    findings = []
    if len(classes) == 1:
        findings.append(Finding(
            code="CLASS_IMBALANCE", severity="warning", where="y_train",
            message=f"y_train holds a single class ({int(classes[0])}): a model learns nothing "
                    "from it but to always predict that class.",
            evidence={"class_counts": {int(classes[0]): int(counts[0])}, "ratio": math.inf},
            fix="check the labels were loaded and split correctly (a split sorted by label?)"))
    elif counts.max() > IMBALANCE_RATIO * counts.min():
        rare = classes[counts < counts.max() / IMBALANCE_RATIO]
        ratio = float(counts.max() / counts.min())
        findings.append(Finding(
            code="CLASS_IMBALANCE", severity="warning", where="y_train",
            message=f"The most common class has {ratio:.0f}x as many samples as the rarest "
                    f"({int(counts.max())} vs {int(counts.min())}); accuracy will hide errors on "
                    "the rare classes.",
            evidence={"class_counts": {int(c): int(n) for c, n in zip(classes, counts)},
                      "ratio": ratio, "rare_classes": [int(c) for c in rare[:20]],
                      "majority_class": int(classes[np.argmax(counts)]),
                      "example_rows_of_rare_classes": _examples(np.flatnonzero(np.isin(labels, rare)))},
            fix="weight the loss by inverse class frequency or resample; report per-class "
                "recall or balanced accuracy, not only accuracy"))
    test_labels = None if y_test is None else _class_labels(y_test)
    if test_labels is not None:
        unseen = np.setdiff1d(np.unique(test_labels[test_labels >= 0]), classes)
        if unseen.size:
            findings.append(Finding(
                code="CLASSES_MISSING_FROM_TRAIN", severity="warning", where="y_test",
                message=f"{unseen.size} class(es) of the test set never occur in training, so "
                        "the model cannot learn them.",
                evidence={"classes": [int(c) for c in unseen[:20]],
                          "example_rows": _examples(np.flatnonzero(np.isin(test_labels, unseen)))},
                fix="split with stratification (the same class proportions in every split)"))
    return findings


def _row_keys(rows):
    """One hashable key per row: its bytes after canonicalising -0.0 to 0.0."""
    canonical = np.ascontiguousarray(rows + 0.0)
    return [row.tobytes() for row in canonical]


def _duplicates_across(train_rows, test_rows, train_keys, y_train, y_test):
    first_train = {}
    for i, key in enumerate(train_keys):
        first_train.setdefault(key, i)
    pairs = [(j, first_train[key]) for j, key in enumerate(_row_keys(test_rows)) if key in first_train]
    findings = []
    if pairs:
        conflicts = 0
        if y_test is not None:
            yt, yr = y_test.reshape(len(y_test), -1), y_train.reshape(len(y_train), -1)
            conflicts = sum(not np.array_equal(yt[j], yr[i]) for j, i in pairs)
        share = len(pairs) / len(test_rows)
        findings.append(Finding(
            code="DUPLICATES_ACROSS_SPLITS", severity="warning", where="x_test",
            message=f"{len(pairs)} test samples ({share:.1%}) also appear in the training set; "
                    "the test score overstates how well the model generalises.",
            evidence={"count": len(pairs), "fraction_of_test": share,
                      "example_pairs": [{"test": int(j), "train": int(i)} for j, i in pairs[:MAX_EXAMPLES]],
                      "label_conflicts": int(conflicts)},
            fix="deduplicate before splitting (hash the rows), then split"))
    exact = {j for j, _ in pairs}
    findings += _near_duplicates(train_rows, test_rows, exact)
    return findings


def _near_duplicates(train_rows, test_rows, exact):
    """Test rows almost equal to a training row (distance in training-std units)."""
    n_features = train_rows.shape[1]
    if n_features < NEAR_DUPLICATE_MIN_FEATURES or len(train_rows) < 2:
        return []
    finite_rows = np.all(np.isfinite(train_rows), axis=1)
    train = train_rows[finite_rows]
    train_index = np.flatnonzero(finite_rows)
    candidates = np.array([j for j in range(len(test_rows))
                           if j not in exact and np.all(np.isfinite(test_rows[j]))], dtype=int)
    if len(train) < 2 or len(candidates) == 0:
        return []
    sampled = False
    if len(train) > NEAR_DUPLICATE_MAX_TRAIN:
        keep = np.sort(np.random.default_rng(0).choice(len(train), NEAR_DUPLICATE_MAX_TRAIN,
                                                       replace=False))
        train, train_index, sampled = train[keep], train_index[keep], True
    limit = max(1, NEAR_DUPLICATE_BUDGET // len(train))
    if len(candidates) > limit:
        candidates = np.sort(np.random.default_rng(0).choice(candidates, limit, replace=False))
        sampled = True
    # per-feature scale, floored at the median one: standardising a nearly constant feature
    # would blow its tiny differences up and hide the real near-copies
    std = train.std(axis=0)
    floor = np.median(std[std > 0]) if np.any(std > 0) else 1.0
    scale = np.maximum(std, floor)
    a = train / scale
    a_sq = (a ** 2).sum(axis=1)

    def nearest_rows(queries, exclude=None):
        """Distance to, and index of, the nearest training row for each query row."""
        dist = np.empty(len(queries))
        index = np.empty(len(queries), dtype=int)
        chunk = max(1, 2_000_000 // max(1, len(a)))
        for start in range(0, len(queries), chunk):
            b = queries[start:start + chunk]
            d2 = a_sq[None, :] + (b ** 2).sum(axis=1)[:, None] - 2 * b @ a.T
            if exclude is not None:
                d2[np.arange(len(b)), exclude[start:start + chunk]] = np.inf
            k = np.argmin(d2, axis=1)
            dist[start:start + chunk] = np.sqrt(np.maximum(d2[np.arange(len(k)), k], 0))
            index[start:start + chunk] = k
        return dist, index

    # the yardstick: how far apart genuinely different samples are (training rows to their
    # nearest other training row); measured on the training set so that a test set made
    # mostly of copies cannot shrink it
    probe = np.random.default_rng(0).choice(len(a), size=min(len(a), 500), replace=False)
    spacing, _ = nearest_rows(a[probe], exclude=probe)
    spacing = spacing[spacing > 0]
    if spacing.size == 0:
        return []
    typical = float(np.median(spacing))
    nearest, which = nearest_rows(test_rows[candidates] / scale)
    close = nearest < NEAR_DUPLICATE_FRACTION * typical
    # distances from the expanded square carry rounding error: recompute the flagged ones exactly
    for pos in np.flatnonzero(close):
        exact_d = float(np.linalg.norm((test_rows[candidates[pos]] - train[which[pos]]) / scale))
        nearest[pos] = exact_d
        close[pos] = exact_d < NEAR_DUPLICATE_FRACTION * typical
    if not close.any():
        return []
    hits = np.flatnonzero(close)
    return [Finding(
        code="NEAR_DUPLICATES_ACROSS_SPLITS", severity="warning", where="x_test",
        message=f"{len(hits)} test samples are near-copies of training samples (closer than "
                f"{NEAR_DUPLICATE_FRACTION:.0%} of the typical nearest-neighbour distance); "
                "augmented or re-encoded copies leak into the test set.",
        evidence={"count": int(len(hits)), "checked_test_rows": int(len(candidates)), "sampled": sampled,
                  "typical_nearest_distance": typical,
                  "example_pairs": [{"test": int(candidates[p]), "train": int(train_index[which[p]]),
                                     "distance": float(nearest[p])} for p in hits[:MAX_EXAMPLES]]},
        fix="group near-identical samples (same source image, same patient...) and keep each "
            "group inside one split")]


def _duplicates_within(row_keys):
    seen, repeats = {}, []
    for i, key in enumerate(row_keys):
        if key in seen:
            repeats.append((i, seen[key]))
        else:
            seen[key] = i
    if not repeats:
        return []
    return [Finding(
        code="DUPLICATES_WITHIN_TRAIN", severity="info", where="x_train",
        message=f"{len(repeats)} training samples are exact repeats of earlier ones (they weigh "
                "double in the loss).",
        evidence={"count": len(repeats),
                  "example_pairs": [{"row": int(i), "first": int(j)} for i, j in repeats[:MAX_EXAMPLES]]},
        fix="deduplicate unless the repetition is intended")]
