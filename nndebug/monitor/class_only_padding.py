"""Padding found on the samples of some classes only (PADDING_PREDICTS_LABEL,
``nndebug.rules.class_padding``).

Clips of different lengths are padded to one input length. When the short clips all come
from one class - detections cut around a call, padded with digital silence, against
background clips cut at full length - "is there padding?" answers the label on its own,
and it is far easier to learn than the sound: training and a validation split built the
same way look excellent, while recordings that are never padded get chance answers. When
every class has short clips, the padding says little and nothing is reported.

What is read: the first float tensor of the model's first argument on its first training
forwards (``first_training_inputs.py`` keeps them: one forward pre-hook, removed after
those forwards) and the targets the loss capture keeps (``run.observed.targets``), when
findings are asked for (NumPy, on the host). For each row the padding is the run of
positions at the end (or the start) of the last axis - time, in (batch, samples),
(batch, bands, frames) and (batch, channels, bands, frames) layouts - where every value of
the position is one constant, the same for each padded row of the batch (the pad value);
a run counts when it covers at least ``MIN_PAD_SHARE`` of the axis and ``MIN_PAD_POSITIONS``
positions. Targets must be one label per row (class ids, or 0/1 floats). Kept as
``run.observed.class_only_padding``: ``[(step, rows, padded rows, [labels of padded rows],
[labels of unpadded rows])]``. No per-step cost; 0.2 ms of CPU a kept batch at findings on
the planted (32, 1, 8, 24) clips.
"""
import numpy as np

from ..rules.class_padding import labels_on_both_sides, split_batch

MIN_PAD_POSITIONS = 2      # [design] positions a run of padding needs (one equal pair of
                           # samples at the end of a waveform is chance)
MIN_PAD_SHARE = 0.05       # [design] share of the last axis a run of padding needs
MIN_SIGNAL_VALUES = 3      # [design] distinct values the unpadded rows must hold where the
                           # padded rows are padded: a signal takes many, one-hot or flag
                           # columns at the end of a table (mlcourse.ai#690's dummies) two
MAX_LABELS = 32            # [design] distinct labels a batch may hold (class ids, not
                           # regression targets)
MAX_BATCH_VALUES = 4_000_000   # [design] values of a batch read at most (host memory)


def padded_rows(x):
    """(padded: bool per row, pad value or None) for one batch ``x`` (rows, ..., positions):
    a row is padded when a run of its last positions (or its first), every value of each
    the same constant, covers MIN_PAD_SHARE of the axis; the constant must be one value
    for the whole batch (the pad value: the most common one among the runs)."""
    rows, length = x.shape[0], x.shape[-1]
    need = max(MIN_PAD_POSITIONS, int(np.ceil(MIN_PAD_SHARE * length)))
    if length < need + 1:
        return None
    x = x.reshape(rows, -1, length)
    ends = []
    for side in (x, x[..., ::-1]):          # trailing padding, then leading padding
        last = side[..., -1]                # (rows, values per position)
        constant = (last == last[:, :1]).all(axis=1)
        same = (side == side[..., -1:]).all(axis=1)        # (rows, positions)
        # run of positions from the end that equal the last position, value for value
        run = np.argmin(same[:, ::-1], axis=1)
        run[same.all(axis=1)] = length
        run[~constant] = 0
        ends.append((run, last[:, 0]))
    run = np.maximum(ends[0][0], ends[1][0])
    value = np.where(ends[0][0] >= ends[1][0], ends[0][1], ends[1][1])
    candidates = run >= need
    trailing = ends[0][0] >= ends[1][0]
    for side, positions in ((trailing, slice(length - need, None)), (~trailing, slice(0, need))):
        others = x[~candidates][..., positions]
        # where the unpadded rows hold only a flag's two values (one-hot columns at the end of
        # a table), a row of zeros there is a category, not a stretch of padded silence
        if len(others) and len(np.unique(others)) < MIN_SIGNAL_VALUES:
            candidates &= ~side
    if not candidates.any():
        return np.zeros(rows, dtype=bool), None
    values, counts = np.unique(value[candidates], return_counts=True)
    pad = values[np.argmax(counts)]
    return candidates & (value == pad), float(pad)


def row_labels(y, rows):
    """One label per row (a list of ints), or None when ``y`` is not one class per row."""
    y = np.asarray(y)
    if y.shape[:1] != (rows,) or (y.ndim > 1 and int(np.prod(y.shape[1:])) != 1):
        return None
    y = y.reshape(rows)
    if y.dtype.kind == "f":
        if not np.isfinite(y).all() or not np.array_equal(y, np.round(y)):
            return None
    elif y.dtype.kind not in "iub":
        return None
    labels = y.astype(np.int64)
    if len(np.unique(labels)) > MAX_LABELS:
        return None
    return labels


class ClassOnlyPadding:
    def __init__(self, adapter, observed, inputs, on_error):
        """``inputs``: the shared ``first_training_inputs.FirstTrainingInputs``."""
        self.adapter, self.observed, self.on_error = adapter, observed, on_error
        self.inputs = inputs

    def read(self):
        """Set ``observed.class_only_padding`` from the kept inputs and targets (once, when
        findings are asked for)."""
        try:
            found = []
            for step, batch, target in self.inputs.paired_with(self.observed.targets,
                                                                "first argument"):
                if batch.ndim < 2 or batch.size > MAX_BATCH_VALUES or batch.shape[0] < 2:
                    continue
                labels = row_labels(target, batch.shape[0])
                if labels is None or not np.isfinite(batch).all():
                    continue
                padded = padded_rows(batch)
                if padded is None:
                    continue
                padded = padded[0]
                row = (step, int(batch.shape[0]), int(padded.sum()),
                       sorted(set(labels[padded].tolist())),
                       sorted(set(labels[~padded].tolist())))
                found.append(row)
                if split_batch(row) and labels_on_both_sides(row):
                    break    # a label on both sides: the rule needs none in every batch read
            if found or not self.observed.class_only_padding:
                self.observed.class_only_padding = found
        except Exception as error:
            self.on_error(error)
