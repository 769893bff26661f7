"""TARGETS_IN_INPUTS and LABELS_MISALIGNED: read from the inputs and targets alone.

For sequence tasks the targets are usually the inputs themselves, moved: next-token
prediction wants targets[:, t] == inputs[:, t + 1] (offset +1). Two silent bugs come from
getting that move wrong:

- no shift at all (offset 0): the target of each position is the input at that very
  position - a copy task nobody meant, learned perfectly, useless;
- the wrong shift (offset -1: predicting the previous token, or +2: shifted twice, once
  by the data and once more by the loss).

The offset is measured: the share of positions where targets[:, t] equals
inputs[:, t + k], for each small k; an offset that explains (almost) every position, far
above what chance agreement of frequent tokens gives, is the one the data uses. Targets
equal to ``ignore_index`` (-100) are left out.
"""
import numpy as np

from ...findings import Finding

MAX_OFFSET = 4
"""Offsets -4..+4 are measured (a shift is a small mistake, never a large one)."""
AGREEMENT = 0.9
"""The offset must explain at least 90% of the (non-ignored) positions..."""
ABOVE_CHANCE = 0.5
"""...and beat chance agreement (sum of p_in(v) * p_target(v) over tokens v) by 0.5."""
COPY_KAPPA = 0.95
"""[design] ...or, where tokens are so unbalanced that chance alone agrees at 0.5+ (a tag
that is 0 at 95% of positions), agree beyond chance almost perfectly: (share - chance) /
(1 - chance) >= 0.95 (Cohen's kappa; core variants 3: a tagger fed the upper-case flag of
its own position, chance 0.92, share 1.0). An input merely correlated with the labels (90%
agreement where chance gives 50-90%) stays far below."""


MIN_SHIFTED_POSITIONS = 2
"""[design] Between float inputs and targets a shift (k != 0) counts only where it is seen on
at least 2 target positions: on an axis of 2 positions a shift by one compares a single
pair, target 0 against input 1, which an image translation whose target channel 0 equals
its input channel 1 (a dark background moved between two colour channels; real-bug batch
214) shows without any sequence. Token ids keep the single pair (a 2-token next-token task
is measured against chance agreement); offset 0 (a copy) keeps its own tests."""


FEATURE_COLUMNS = 64
"""A multivariate series, inputs (B, T, F) against targets (B, T): each of the first 64
feature columns is tried as the targets' own series (core variants, issue #10: the series a
forecaster predicts is usually one of its inputs - tomorrow's price from today's prices and
volumes)."""


def measure_offset(x, y, ignore_index=-100):
    """(offset, share, chance) or None: the k for which y[:, t] == x[:, t + k] almost always
    (for float inputs with one axis more than the targets, in one of their feature columns)."""
    if x is None or y is None or x.ndim < 2 or y.ndim < 2 or x.shape[0] != y.shape[0]:
        return None
    if x.ndim == 3 and x.dtype.kind == "f" and y.dtype.kind == "f" and \
            (y.ndim == 2 or (y.ndim == 3 and y.shape[2] == 1)) and x.shape[2] > 1:
        target = y.reshape(y.shape[:2])
        found = [measure_offset(x[:, :, f], target, ignore_index)
                 for f in range(min(x.shape[2], FEATURE_COLUMNS))]
        found = [m for m in found if m is not None]
        return max(found, key=lambda m: (m[1], -abs(m[0]))) if found else None
    if x.shape[2:] != y.shape[2:] or x.dtype.kind not in "iuf" or y.dtype.kind not in "iuf":
        return None
    if (x.dtype.kind == "f") != (y.dtype.kind == "f"):
        # ids on one side, floats on the other: floats that are all whole numbers are ids
        # too (a binary loss takes its 0/1 labels as floats: a knowledge tracer's response
        # targets, float32, against the int64 responses it reads; real-bug batch 146)
        x, y = _whole_numbers_as_ids(x), _whole_numbers_as_ids(y)
        if x is None or y is None:
            return None
    shares = {}
    for k in range(-MAX_OFFSET, MAX_OFFSET + 1):
        if k and x.dtype.kind == "f" and \
                min(y.shape[1], x.shape[1] - k) - max(0, -k) < MIN_SHIFTED_POSITIONS:
            continue
        share = _share(x, y, k, ignore_index)
        if share is not None:
            shares[k] = share
    if not shares:
        return None
    best = max(shares, key=lambda k: (shares[k], -abs(k)))
    chance = _chance(x, y, ignore_index)
    share = shares[best]
    beyond = (share - chance) / (1 - chance) if chance < 1 else 0.0
    if share >= AGREEMENT and (share >= chance + ABOVE_CHANCE or beyond >= COPY_KAPPA):
        return best, share, chance
    return None


def _whole_numbers_as_ids(a):
    """``a`` itself when it holds integers; a float array whose values are all whole
    numbers as int64; None for any other float array (measurements, not ids)."""
    if a.dtype.kind != "f":
        return a
    if a.size and np.all(np.isfinite(a)) and np.all(a == np.round(a)) and \
            np.abs(a).max() < 2 ** 31:
        return a.astype(np.int64)
    return None


def _share(x, y, k, ignore_index):
    """Share of target positions t (not ignored) with y[:, t] == x[:, t + k]."""
    lx, ly = x.shape[1], y.shape[1]
    start, stop = max(0, -k), min(ly, lx - k)
    if stop - start < 1:
        return None
    yt, xt = y[:, start:stop], x[:, start + k:stop + k]
    if x.dtype.kind == "f":
        same = np.isclose(yt, xt, rtol=1e-6, atol=1e-8).reshape(yt.shape[:2] + (-1,)).all(axis=2)
        valid = np.ones(same.shape, bool)
    else:
        same, valid = yt == xt, yt != ignore_index
    if valid.sum() == 0:
        return None
    return float(same[valid].mean())


def _chance(x, y, ignore_index):
    if x.dtype.kind == "f":
        return 0.0
    values, counts = np.unique(x, return_counts=True)
    p_in = dict(zip(values.tolist(), counts / counts.sum()))
    kept = y[y != ignore_index]
    if kept.size == 0:
        return 1.0
    values, counts = np.unique(kept, return_counts=True)
    return float(sum(p_in.get(v, 0.0) * c / kept.size for v, c in zip(values.tolist(), counts)))


def probe_alignment(x, y, *, causal=None, task_offset=None, ignore_index=-100, loss_shift=0):
    """(findings, measured offset or None, notes). ``loss_shift``: positions the loss itself
    shifts (1 for a loss that compares output t with target t + 1)."""
    measured = measure_offset(x, y, ignore_index)
    if measured is None:
        return [], None, []
    offset, share, chance = measured
    offset += loss_shift
    tokens = x.dtype.kind != "f"
    expected = task_offset if task_offset is not None else (1 if causal else None)
    evidence = {"offset": int(offset), "share": share, "chance": chance,
                "expected_offset": expected, "loss_shift": loss_shift,
                "meaning": "targets[:, t] == inputs[:, t + offset] at this share of positions"}
    if offset == 0 and (tokens or causal) and expected != 0:
        return [Finding(
            "TARGETS_IN_INPUTS", "error", "",
            message=f"the target of each position is the input at that same position "
                    f"({share:.0%} of positions; chance {chance:.0%}"
                    + (", after the loss's own shift" if loss_shift else "")
                    + "): the model is asked to copy its input, which it learns perfectly and "
                    "uselessly",
            evidence=evidence,
            fix="shift the labels for next-token prediction: inputs = seq[:, :-1], targets = "
                "seq[:, 1:] (or logits[:, :-1] against labels[:, 1:]); if your loss shifts "
                "them itself (as Hugging Face models do), pass task_offset=0")], offset, []
    if expected is None:
        expected = 1 if offset != 0 else None
        if offset in (0, 1) or (not tokens and offset > 1):
            return [], offset, []          # a copy/autoencoder task on floats, or next-step
    if expected is not None and offset != expected:
        direction = "the previous position's input" if offset < 0 else \
            f"the input {offset} positions ahead"
        return [Finding(
            "LABELS_MISALIGNED", "error" if offset <= 0 else "warning", "",
            message=f"the targets are the inputs shifted by {offset:+d} (targets[:, t] == "
                    f"inputs[:, t{offset - loss_shift:+d}] at {share:.0%} of positions"
                    + (", and the loss shifts once more" if loss_shift else "")
                    + f"), so position t is taught {direction}; the task wants offset "
                    f"{expected:+d}",
            evidence=evidence,
            fix=f"shift by exactly {expected}: targets = seq[:, {expected}:] against inputs = "
                f"seq[:, :-{expected}] - shift once, either in the data or in the loss, never in "
                "both (if you do mean to predict further ahead, pass task_offset)")], offset, []
    return [], offset, []


MIN_SAMPLES_FOR_COLUMN = 8
"""A feature column is called the label only when it matches it on at least 8 samples."""


def probe_label_column(x, y):
    """TARGETS_IN_INPUTS for one target per sample (a class label, or a regression value):
    an input column that IS the target (the target column left in the table when it was
    split into features and labels). Equality is exact: a float target copied into the
    features keeps its bits. Per-position targets ``(B, T)`` with ``(B, T, F)`` inputs:
    ``probe_target_feature``."""
    if x is not None and y is not None and x.ndim == 3 and y.ndim == 2:
        return probe_target_feature(x, y)
    flattened = x is not None and x.ndim >= 3
    x = _per_sample_rows(x, y)
    if x is None or y is None or x.ndim != 2 or x.shape[1] < 2 or x.dtype.kind not in "fiu":
        return []
    labels = y.reshape(-1) if y.ndim == 2 and y.shape[1] == 1 else y
    if flattened:
        labels = labels[:x.shape[0]]      # a flattened N-D batch keeps its first rows only
    if labels.ndim != 1 or labels.shape[0] != x.shape[0] or labels.dtype.kind not in "iuf" \
            or x.shape[0] < MIN_SAMPLES_FOR_COLUMN or np.unique(labels).size < 2:
        return []
    # every column compared at once (one pass over the batch, not one call per column)
    matches = np.all(x.astype(np.float64) == labels.astype(np.float64)[:, None], axis=0)
    columns = np.flatnonzero(matches).tolist()
    rescaled = not columns
    columns = columns or _rescaled_label_columns(x, labels)
    if not columns:
        return _indicator_columns_finding(x, labels)
    return [Finding(
        "TARGETS_IN_INPUTS", "error", "",
        message=f"input column {columns[0]} holds the target of every sample ({x.shape[0]} of "
                f"{x.shape[0]}{', rescaled: a * target + b' if rescaled else ''}): the model "
                "can read the answer instead of learning it",
        evidence={"columns": columns, "samples": int(x.shape[0]),
                  "meaning": "inputs[:, column] == a * targets + b for every sample"
                  if rescaled else "inputs[:, column] == targets for every sample"},
        fix="drop the label column from the features (the target left in the table when it "
            "was split into inputs and labels)")]


FLAT_MAX_VALUES = 1 << 14
"""[design] (core variants 6) An image or other N-D input with one target per sample is read
as a table of its flattened values (one column per pixel: a label written into a pixel is a
column that is the label), when a sample holds at most 16,384 values (a 3 x 64 x 64 image);
larger inputs are not read, so the check stays a few milliseconds, once."""
FLAT_MAX_ROWS = 64
"""[design] ... and only the first 64 samples of such a batch (8 suffice to call a column
the label: MIN_SAMPLES_FOR_COLUMN)."""


def _per_sample_rows(x, y):
    """``x`` as it is, or an N-D batch (3+ axes) with one target per sample flattened to a
    (samples, values) table (FLAT_MAX_VALUES, FLAT_MAX_ROWS); None where it is too large."""
    if x is None or y is None or x.ndim < 3:
        return x
    per_sample = y.ndim == 1 or (y.ndim == 2 and y.shape[1] == 1)
    values = int(np.prod(x.shape[1:]))
    if not per_sample or y.shape[0] != x.shape[0] or values > FLAT_MAX_VALUES:
        return None
    return x[:FLAT_MAX_ROWS].reshape(min(x.shape[0], FLAT_MAX_ROWS), values)


AFFINE_TOLERANCE = 1e-4
"""[design] A column whose z-scores equal the class ids' z-scores within this, on every
sample, is the label rescaled (standardised or divided by the class count along with the
features); float32 rounding of such a copy stays near 1e-7."""
AFFINE_MIN_CLASSES = 3
"""[design] Only class ids of 3 or more values are compared up to scale: a binary label
rescaled is any two-valued column that happens to split the batch like the label, and a
noise-free toy regression (y = a x + b) is a healthy run, not a leak."""


def _rescaled_label_columns(x, labels):
    """The columns that are an affine function of integer class ids (a*label + b, a != 0):
    the label column standardised or scaled with the features before it was split off."""
    if labels.dtype.kind == "f" and not np.all(labels == np.round(labels)):
        return []
    if np.unique(labels).size < AFFINE_MIN_CLASSES:
        return []
    columns = x.astype(np.float64)
    spread = columns.std(axis=0)
    z_label = (labels - labels.mean()) / labels.std()
    usable = spread > 0
    z = (columns[:, usable] - columns[:, usable].mean(axis=0)) / spread[usable]
    close = np.minimum(np.abs(z - z_label[:, None]).max(axis=0),
                       np.abs(z + z_label[:, None]).max(axis=0)) < AFFINE_TOLERANCE
    return np.flatnonzero(usable)[close].tolist()


INDICATOR_MIN_CLASSES = 3
"""[design] The label's one-hot columns are named only when 3+ of the batch's classes have
their indicator column and at most one class has none (a one-hot with its first column
dropped, get_dummies(drop_first=True), still encodes every class): one 0/1 column that
splits a batch like one class may be chance (a rare category), 3+ of them are not."""


def _indicator_columns(x, labels):
    """{class: column} when the class ids present in the batch (3+ of them with a column,
    at most one without) have an input column that is an affine function of their
    indicator (labels == class): two values, one on the class's rows and another on all
    other rows - the label one-hot encoded with the other categoricals and left in the
    features (standardised with them or not). {} otherwise."""
    if labels.dtype.kind == "f" and not np.all(labels == np.round(labels)):
        return {}
    classes = np.unique(labels)
    if classes.size < INDICATOR_MIN_CLASSES or classes.size > x.shape[1] + 1:
        return {}
    columns = x.astype(np.float64)
    # an indicator column holds two values: the others are left out before the class loop
    low, high = columns.min(axis=0), columns.max(axis=0)
    two = np.flatnonzero((low < high) & np.all((columns == low) | (columns == high), axis=0))
    if two.size < INDICATOR_MIN_CLASSES:
        return {}
    columns = columns[:, two]
    found, missing = {}, 0
    for c in classes:
        inside = labels == c
        a, b = columns[inside], columns[~inside]
        same = (a.min(axis=0) == a.max(axis=0)) & (b.min(axis=0) == b.max(axis=0)) & \
            (a[0] != b[0])
        hits = np.flatnonzero(same)
        if hits.size == 0:
            missing += 1
            if missing > 1:
                return {}
            continue
        found[int(c)] = int(two[hits[0]])
    return found if len(found) >= INDICATOR_MIN_CLASSES else {}


def _indicator_columns_finding(x, labels):
    found = _indicator_columns(x, labels)
    if not found:
        return []
    columns = sorted(set(found.values()))
    return [Finding(
        "TARGETS_IN_INPUTS", "error", "",
        message=f"input columns {columns[0]}..{columns[-1]} are the target one-hot encoded: "
                f"each of the batch's {len(found)} classes has a column that is 1 (or one "
                f"value) on exactly its samples ({x.shape[0]} of {x.shape[0]}): the model can "
                "read the answer instead of learning it",
        evidence={"columns": columns, "classes": len(found), "samples": int(x.shape[0]),
                  "meaning": "inputs[:, column] == a * (targets == class) + b for every "
                             "sample, one column per class"},
        fix="drop the label's one-hot columns from the features (the target encoded with the "
            "categorical columns before the split into inputs and labels)")]


def probe_target_feature(x, y):
    """TARGETS_IN_INPUTS for a target per position: ``(B, T)`` targets (a forecast, a tag
    per step) with ``(B, T, F)`` inputs, one of whose features holds the target of the same
    position or of a later one (``x[:, t, f] == y[:, t + k]``, ``0 <= k <= MAX_OFFSET``):
    the target column left among the covariates, so the model reads at step t the value it
    is asked to predict there. The value of an *earlier* position (k < 0, a lagged target)
    is what autoregressive models are fed on purpose, and is not named; nor is a lone
    feature equal to the target of its own position (a sequence autoencoder)."""
    if x.shape[:2] != y.shape or x.dtype.kind not in "fiu" or y.dtype.kind not in "fiu" or \
            x.shape[0] < MIN_SAMPLES_FOR_COLUMN or np.unique(y).size < 2:
        return []
    wanted = y.astype(np.float64)
    for k in range(MAX_OFFSET + 1):
        if y.shape[1] - k < 1:
            break
        later = wanted[:, k:]
        for f in range(x.shape[2]):
            if k == 0 and x.shape[2] == 1:
                continue                      # reconstructing the input: an autoencoder
            if np.array_equal(x[:, :x.shape[1] - k, f].astype(np.float64), later):
                ahead = "the same position" if k == 0 else f"the position {k} steps ahead"
                return [Finding(
                    "TARGETS_IN_INPUTS", "error", "",
                    message=f"input feature {f} holds the target of {ahead} at every position "
                            f"of all {x.shape[0]} samples (inputs[:, t, {f}] == "
                            f"targets[:, t + {k}]): the model reads the value it is asked to "
                            "predict",
                    evidence={"feature": f, "offset": k, "samples": int(x.shape[0]),
                              "meaning": "inputs[:, t, feature] == targets[:, t + offset] "
                                         "everywhere"},
                    fix="feed the target's last known value instead (inputs[:, t] holding "
                        "targets[:, t - 1], as autoregressive decoders do), or drop the "
                        "target column from the inputs")]
    return []
