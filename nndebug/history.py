"""The bounded history of a watched run: what a long run keeps under ``max_history_mb``.

``nndebug.watch`` is meant to stay switched on for runs of a million steps. Keeping every
loss and every recorded step would grow without end (about 10 GB for a deep model at 1M
steps), and the rules would take longer and longer to read it. ``BoundedRun`` is a
``RunRecord`` that keeps its own size under a budget in bytes, so that the rules, the
reports and the plots read it exactly as they read any run.

Retention policy
----------------
The budget (``max_history_mb``, 64 MiB by default) is split: a quarter for the two loss
curves (training and validation, half each), the rest for the detailed records and the
activation histograms (an eighth of the whole budget for the histograms).

1. **Loss curves.** Every loss is kept at full resolution while the curve is short. When
   the full-resolution part outgrows half of its curve's share (and at most
   ``FULL_CURVE_MAX`` points, so that the rules' time stays bounded), its older half is
   folded into buckets of ``width`` consecutive losses (the newest bucket stays open until
   it is full), each holding count, min, mean and max and the first non-finite step. When
   the buckets outgrow the other half, neighbours merge two by two (the width doubles).
   The rules see a bucket as its mean at its middle step, and every bucket that holds a
   NaN/Inf as a NaN at the exact step where the first one appeared (NAN_LOSS keeps its
   step). The latest losses stay at full resolution:
   what the noise, spike and trend rules measure at the end of the run is unchanged.
2. **Detailed records** (``StepRecord``: gradients, weights, activations, inputs, output)
   are kept whole or dropped whole. At most ``MAX_RECORDS`` are kept whatever the budget
   (the rules' time grows with their number), and of the extra records (those the time
   budget let the monitor take, for plots only) at most ``MAX_EXTRA_RECORDS``: a plot
   needs no more, and a long run's memory then grows with the judged records alone
   (about one in a thousand steps). When they outgrow their share, a compaction keeps
   a. *early* records: the first ``EARLY_RECORDS`` and those at step 0, 1, 2 and every
      power of two (the monitor always records these: the early phase, on a log time
      scale, is where many bugs show and what rules compare the run with);
   b. *recent* records: the latest ones, up to ``RECENT_SHARE`` of the record budget (at
      least ``MIN_RECENT``); after a NaN, the latest ones before it (the rules read only
      what came before the first non-finite step);
   c. *evidence*: every record whose step a finding of the run so far names (its step or
      a step listed in its evidence), and the last record before the first non-finite
      step with the first ``NAN_EVIDENCE_RECORDS`` from it on (where a NaN comes from);
   d. the *rest, thinned evenly*: the steps are cut into cells of equal width and one
      record is kept per cell (preferably one with the detailed statistics recorded every
      ``histogram_every`` records); the width doubles until they fit. Records before the
      first non-finite step come first; those after it fill what room is left.
   This applies to the *judged* records, the ones the rules read (which steps are judged
   depends on the step number alone). *Extra* records, taken when the monitor's time
   budget allowed them (``StepRecord.judged`` False; plots only), fill the room left,
   thinned evenly too: what the rules see never depends on the machine's speed.
   When everything does not fit, the priority is: the first three and the latest
   ``MIN_RECENT`` records (kept in any case), the evidence, the early records, the recent
   window, the rest. A compaction brings the records down
   to ``COMPACT_TO`` of their share, so that it runs rarely (its cost, one diagnosis of the
   run so far, is spread over many steps).
3. **Histograms** are thinned the same way within their own share: the first
   ``EARLY_HISTOGRAMS``, the latest ``RECENT_HISTOGRAMS``, the rest evenly.

Memory is accounted in bytes: NumPy arrays by their ``nbytes`` plus the array object, dicts
and floats by CPython's own sizes (``sys.getsizeof``); names shared by every record (layer
and statistic names) are counted once, as they are stored once.
"""
import math
import operator
import sys
from dataclasses import dataclass, field

import numpy as np

from .records import RunRecord, StepRecord

MIB = 1024 * 1024
DEFAULT_MAX_HISTORY_MB = 64
CURVE_SHARE = 0.25            # of the budget: the loss curves (training and validation)
HISTOGRAM_SHARE = 0.125       # of the budget: the activation histograms
FULL_CURVE_MAX = 2 ** 18      # losses kept at full resolution, at most (analysis time)
FIRST_BUCKET_WIDTH = 8        # losses per bucket when the curve is first folded
MIN_CURVE_POINTS = 64         # a curve keeps at least this many points, whatever the budget
MAX_RECORDS = 1024            # detailed records kept, at most (analysis time)
MAX_EXTRA_RECORDS = 256       # extra records kept, at most (plots need no more)
EARLY_RECORDS = 8             # the first records, always kept
RECENT_SHARE = 0.25           # of the record budget: the latest records
MIN_RECENT = 4                # the latest records kept, at least
NAN_EVIDENCE_RECORDS = 8      # records kept from the first non-finite step on (and the one
                              # before it): enough to see where the NaN came from
COMPACT_TO = 0.75             # a compaction leaves the records at 3/4 of their budget
EARLY_HISTOGRAMS, RECENT_HISTOGRAMS = 3, 4

# the columns of a bucket of losses (one row per bucket, float64)
FIRST, LAST, COUNT, MIN, MEAN, MAX, NONFINITE, FIRST_NONFINITE = range(8)
BUCKET_COLUMNS = 8

_ARRAY_OVERHEAD = sys.getsizeof(np.zeros(0))
_FLOAT = sys.getsizeof(1.0)


def budget_bytes(max_history_mb):
    """The budget in bytes (None: unlimited); a clear error for anything but a positive number."""
    if max_history_mb is None:
        return None
    if isinstance(max_history_mb, bool) or not isinstance(max_history_mb, (int, float)) \
            or not math.isfinite(max_history_mb) or max_history_mb <= 0:
        raise ValueError(f"max_history_mb must be a positive number of MiB (the monitor's memory "
                         f"budget) or None for no limit; got {max_history_mb!r}")
    return int(max_history_mb * MIB)


# ============================================================================================
# sizes
# ============================================================================================
def _array_bytes(a):
    return 0 if a is None else _ARRAY_OVERHEAD + getattr(a, "nbytes", 0)


def record_bytes(record):
    """Estimated memory held by one ``StepRecord`` (bytes)."""
    total = sys.getsizeof(record) + sys.getsizeof(record.__dict__)
    for name in ("grad_norm", "grad_received", "held_norm", "held_excess", "param_norm",
                 "update_norm", "output"):
        total += _array_bytes(getattr(record, name))
    total += sys.getsizeof(record.activations)
    for stats in record.activations.values():
        total += sys.getsizeof(stats) + _FLOAT * len(stats)
    total += sys.getsizeof(record.dead_units)
    total += sum(_array_bytes(mask) for mask in record.dead_units.values())
    total += sys.getsizeof(record.inputs) + _FLOAT * len(record.inputs)
    total += sys.getsizeof(record.eval_layers) + sys.getsizeof(record.lrs) + _FLOAT * len(record.lrs)
    return total


def histogram_bytes(entry):
    """Estimated memory held by one ``(step, {layer: (counts, edges)})`` entry (bytes)."""
    _, layers = entry
    total = 64 + sys.getsizeof(layers)
    for pair in layers.values():
        total += sys.getsizeof(pair) + sum(_array_bytes(np.asarray(a)) for a in pair)
    return total


# ============================================================================================
# a loss curve: full resolution while short, buckets for its older part once long
# ============================================================================================
class LossCurve:
    """One loss curve (steps, values) under a budget of ``max_bytes`` (None: unlimited)."""

    def __init__(self, max_bytes=None):
        half = None if max_bytes is None else max_bytes // 2
        # full-resolution points, at most: 16 bytes each, and room for half as many again
        # arriving before a fold, within half of the curve's budget
        self.full_max = None if half is None else \
            int(min(FULL_CURVE_MAX, max(MIN_CURVE_POINTS, half // 24)))
        self.bucket_max = None if half is None else max(MIN_CURVE_POINTS, half // (8 * BUCKET_COLUMNS))
        self.width = FIRST_BUCKET_WIDTH
        self.buckets = np.zeros((0, BUCKET_COLUMNS))
        self._steps = np.zeros(0, dtype=np.int64)
        self._values = np.zeros(0)
        self._n = 0                  # used length of _steps/_values (capacity grows by doubling)
        self._view = self._bucket_view = None

    def __len__(self):
        """How many points the rules see."""
        return len(self.bucket_points()[0]) + self._n

    @property
    def n_full(self):
        return self._n

    @property
    def nbytes(self):
        return self._steps.nbytes + self._values.nbytes + self.buckets.nbytes

    def extend(self, steps, values):
        steps = np.asarray(steps, dtype=np.int64).reshape(-1)
        values = np.asarray(values, dtype=float).reshape(-1)
        if len(steps) != len(values):
            raise ValueError(f"a loss curve needs one value per step; got {len(steps)} steps and "
                             f"{len(values)} values")
        piece = max(1, len(steps) if self.full_max is None else self.full_max // 2)
        for start in range(0, len(steps), piece):
            self._append(steps[start:start + piece], values[start:start + piece])

    def _append(self, steps, values):
        need = self._n + len(steps)
        if need > len(self._steps):
            capacity = max(need, 2 * len(self._steps), 256)
            if self.full_max is not None:
                capacity = max(need, min(capacity, self.full_max + self.full_max // 2))
            self._steps = _grown(self._steps, self._n, capacity)
            self._values = _grown(self._values, self._n, capacity)
        self._steps[self._n:need] = steps
        self._values[self._n:need] = values
        self._n = need
        self._view = None
        if self.full_max is not None and self._n > self.full_max:
            self._fold()

    def points(self):
        """(steps, values) as the rules see them: bucket means, then the full-resolution part."""
        if self._view is None:
            full = (self._steps[:self._n].copy(), self._values[:self._n].copy())
            if len(self.buckets) == 0:
                self._view = full
            else:
                steps, values = self.bucket_points()
                self._view = (np.concatenate([steps, full[0]]), np.concatenate([values, full[1]]))
        return self._view

    def bucket_points(self):
        """``bucket_points(self.buckets)``, kept until the buckets change."""
        if self._bucket_view is None:
            self._bucket_view = bucket_points(self.buckets)
        return self._bucket_view

    def full_part(self):
        """(steps, values) of the full-resolution part: views, not copies (read only)."""
        return self._steps[:self._n], self._values[:self._n]

    def state(self):
        return {"steps": self._steps[:self._n].copy(), "values": self._values[:self._n].copy(),
                "buckets": self.buckets.copy(), "width": self.width}

    def load(self, steps, values, buckets, width):
        self.buckets = np.asarray(buckets, dtype=float).reshape(-1, BUCKET_COLUMNS)
        self.width = int(width)
        self._view = self._bucket_view = None
        self._steps, self._values, self._n = np.zeros(0, dtype=np.int64), np.zeros(0), 0
        self.extend(steps, values)
        if self.bucket_max is not None:
            while len(self.buckets) > self.bucket_max:
                self._merge_buckets()

    # --- folding ------------------------------------------------------------------------
    def _fold(self):
        """The older half of the full-resolution part becomes buckets of ``width`` losses (the
        last bucket stays open, filled first by the next fold, until it holds ``width``)."""
        width, take = self.width, self._n // 2
        steps, values = self._steps[:take], self._values[:take]
        new = []
        if len(self.buckets) and self.buckets[-1, COUNT] < width:
            fill = int(min(take, width - self.buckets[-1, COUNT]))
            head = make_buckets(steps[None, :fill], values[None, :fill])
            self.buckets[-1] = combine_buckets(self.buckets[-1:], head)[0]
            steps, values = steps[fill:], values[fill:]
        whole = len(steps) // width * width
        if whole:
            new.append(make_buckets(steps[:whole].reshape(-1, width),
                                    values[:whole].reshape(-1, width)))
        if len(steps) > whole:
            new.append(make_buckets(steps[None, whole:], values[None, whole:]))
        self.buckets = np.vstack([self.buckets, *new])
        self._view = self._bucket_view = None
        rest = self._n - take
        self._steps[:rest] = self._steps[take:self._n]
        self._values[:rest] = self._values[take:self._n]
        self._n = rest
        while len(self.buckets) > self.bucket_max:
            self._merge_buckets()

    def _merge_buckets(self):
        """Neighbouring buckets merge two by two: half as many, twice as wide."""
        b = self.buckets
        pairs = len(b) // 2
        merged = combine_buckets(b[0:2 * pairs:2], b[1:2 * pairs:2])
        self.buckets = np.vstack([merged, b[2 * pairs:]])
        self.width *= 2
        self._view = self._bucket_view = None


def combine_buckets(a, c):
    """Row by row, the bucket holding the losses of bucket ``a`` followed by those of ``c``."""
    merged = np.empty((len(a), BUCKET_COLUMNS))
    merged[:, FIRST], merged[:, LAST] = a[:, FIRST], c[:, LAST]
    merged[:, COUNT] = a[:, COUNT] + c[:, COUNT]
    merged[:, NONFINITE] = a[:, NONFINITE] + c[:, NONFINITE]
    merged[:, MIN] = np.fmin(a[:, MIN], c[:, MIN])
    merged[:, MAX] = np.fmax(a[:, MAX], c[:, MAX])
    fa, fc = a[:, COUNT] - a[:, NONFINITE], c[:, COUNT] - c[:, NONFINITE]
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = (np.nan_to_num(a[:, MEAN]) * fa + np.nan_to_num(c[:, MEAN]) * fc) / (fa + fc)
    merged[:, MEAN] = np.where(fa + fc > 0, mean, np.nan)
    merged[:, FIRST_NONFINITE] = np.fmin(a[:, FIRST_NONFINITE], c[:, FIRST_NONFINITE])
    return merged


def _grown(array, used, capacity):
    out = np.empty(capacity, dtype=array.dtype)
    out[:used] = array[:used]
    return out


def make_buckets(steps, values):
    """Rows of consecutive losses -> one bucket per row (see the column names above)."""
    finite = np.isfinite(values)
    n_finite = finite.sum(axis=1)
    out = np.empty((len(values), BUCKET_COLUMNS))
    out[:, FIRST], out[:, LAST] = steps[:, 0], steps[:, -1]
    out[:, COUNT] = values.shape[1]
    out[:, NONFINITE] = values.shape[1] - n_finite
    with np.errstate(invalid="ignore", divide="ignore"):
        out[:, MIN] = np.where(n_finite > 0, np.where(finite, values, np.inf).min(axis=1), np.nan)
        out[:, MAX] = np.where(n_finite > 0, np.where(finite, values, -np.inf).max(axis=1), np.nan)
        out[:, MEAN] = np.where(n_finite > 0, np.where(finite, values, 0.0).sum(axis=1) / n_finite,
                                np.nan)
    first_bad = np.argmax(~finite, axis=1)
    out[:, FIRST_NONFINITE] = np.where(n_finite < values.shape[1],
                                       steps[np.arange(len(steps)), first_bad], np.nan)
    return out


def bucket_points(buckets):
    """What the rules see of the buckets: each finite mean at the bucket's middle step, and a
    NaN at the first non-finite step of each bucket that holds one; sorted by step."""
    if len(buckets) == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0)
    has_finite = buckets[:, COUNT] > buckets[:, NONFINITE]
    has_bad = buckets[:, NONFINITE] > 0
    middle = ((buckets[:, FIRST] + buckets[:, LAST]) // 2).astype(np.int64)
    steps = np.concatenate([middle[has_finite], buckets[has_bad, FIRST_NONFINITE].astype(np.int64)])
    values = np.concatenate([buckets[has_finite, MEAN], np.full(int(has_bad.sum()), np.nan)])
    order = np.argsort(steps, kind="stable")
    return steps[order], values[order]


class CurveColumn:
    """``run.loss_steps`` / ``run.losses`` of a bounded run: list-like, backed by a LossCurve.

    Appending works as on a list (the steps column and the values column are paired up as
    both arrive, then go into the curve); reading (len, index, slice, iteration, NumPy)
    gives what the rules see: ``LossCurve.points()``.
    """

    def __init__(self, curve, column, pairing):
        self.curve, self.column, self.pairing = curve, column, pairing

    def _values(self):
        return self.curve.points()[self.column]

    def extend(self, values):
        self.pairing[self.column].extend(values)
        steps, losses = self.pairing
        n = min(len(steps), len(losses))
        if n:
            self.curve.extend(steps[:n], losses[:n])
            del steps[:n], losses[:n]

    def append(self, value):
        self.extend([value])

    def __len__(self):
        return len(self.curve)

    def __getitem__(self, index):
        """An index or a slice; one that falls in the full-resolution part (the newest
        losses, what the monitor reads while training) costs nothing for a long curve."""
        head = self.curve.bucket_points()[self.column]
        full = self.curve.full_part()[self.column]
        n = len(head) + len(full)
        if isinstance(index, slice):
            start, stop, stride = index.indices(n)
            if stride > 0 and start >= len(head):
                return full[start - len(head):max(stop - len(head), 0):stride].tolist()
            return self._values()[index].tolist()
        i = operator.index(index)
        i = i + n if i < 0 else i
        if not 0 <= i < n:
            raise IndexError(f"loss index {index} out of range for a curve of {n} points")
        return (full[i - len(head)] if i >= len(head) else head[i]).item()

    def __iter__(self):
        return iter(self._values().tolist())

    def __array__(self, dtype=None, copy=None):
        values = self._values()
        return values if dtype is None else values.astype(dtype)

    def __repr__(self):
        return f"CurveColumn({len(self)} points)"


DISPLAY_POINTS = 2000        # a plotted curve longer than this is drawn as buckets


def display_buckets(steps, values, points=DISPLAY_POINTS):
    """A long curve for the eye: (middle step, min, mean, max) of ``points`` buckets of
    consecutive values (finite ones; pass only those). Plotting a million points costs
    seconds and shows no more than a band of their range around a line of their means."""
    steps, values = np.asarray(steps), np.asarray(values, dtype=float)
    starts = np.unique(np.linspace(0, len(values), points, endpoint=False).astype(int))
    counts = np.diff(np.append(starts, len(values)))
    middle = steps[starts + (counts - 1) // 2]
    return (middle, np.minimum.reduceat(values, starts), np.add.reduceat(values, starts) / counts,
            np.maximum.reduceat(values, starts))


# ============================================================================================
# the bounded run
# ============================================================================================
@dataclass
class BoundedRun(RunRecord):
    """A ``RunRecord`` that keeps itself under ``max_bytes`` (None: no limit); see above.

    The monitor appends to it as to any run (``loss_steps``/``losses``, ``records``,
    ``histograms``) and calls ``enforce_budget()`` after each record, which compacts the records
    when they are over budget. The loss columns are ``CurveColumn`` objects: the losses go
    straight into NumPy curves, and reading them gives what the rules see.
    """

    max_bytes: "int | None" = None
    findings_for_evidence: object = None   # callable(run) -> findings; default: the rules
    compactions: int = 0
    _curves: dict = field(default_factory=dict, repr=False)
    _sizes: list = field(default_factory=list, repr=False)      # bytes of each record
    _hist_sizes: list = field(default_factory=list, repr=False)
    _bytes_after_compaction: int = 0
    _judged_after_compaction: int = 0
    _record_grid: int = 1                  # cell width (steps) of the evenly thinned records
    _extra_grid: int = 1                   # ... of the extra (not judged) records
    _histogram_grid: int = 1

    def __post_init__(self):
        share = None if self.max_bytes is None else int(self.max_bytes * CURVE_SHARE / 2)
        self._curves = {"train": LossCurve(share), "val": LossCurve(share)}
        self._pairing = {"train": ([], []), "val": ([], [])}
        self._totals = [0, 0, 0, 0]    # bytes of records, of judged records; judged; histograms
        given = (self.loss_steps, self.losses, self.val_steps, self.val_losses)
        for which, names in (("train", ("loss_steps", "losses")), ("val", ("val_steps", "val_losses"))):
            for column, name in enumerate(names):
                setattr(self, name, CurveColumn(self._curves[which], column, self._pairing[which]))
        for column, values in zip((self.loss_steps, self.losses, self.val_steps, self.val_losses), given):
            column.extend(values)

    def add_losses(self, curve, steps, values):
        """Straight into the curve (one call, not a column at a time), unless a column was
        extended on its own and waits for its pair."""
        pairing = self._pairing[curve]
        if pairing[0] or pairing[1]:
            super().add_losses(curve, steps, values)
        else:
            self._curves[curve].extend(steps, values)

    # --- budgets ------------------------------------------------------------------------
    @property
    def record_budget(self):
        if self.max_bytes is None:
            return None
        return int(self.max_bytes * (1 - CURVE_SHARE - HISTOGRAM_SHARE))

    @property
    def histogram_budget(self):
        return None if self.max_bytes is None else int(self.max_bytes * HISTOGRAM_SHARE)

    def history_bytes(self):
        """The estimated bytes the history holds now (curves, records, histograms)."""
        self._count_sizes()
        return (sum(c.nbytes for c in self._curves.values()) + sum(self._sizes)
                + sum(self._hist_sizes))

    # --- what the rules, reports and plots read -------------------------------------------
    def loss_array(self):
        return self._curves["train"].points()

    def val_array(self):
        return self._curves["val"].points()

    def curve(self, which="train"):
        """The ``LossCurve`` of "train" or "val" (its buckets hold min/mean/max)."""
        return self._curves[which]

    def to_dict(self, records=True):
        out = super().to_dict(records)
        for key, (steps, values) in (("losses", self.loss_array()), ("val_losses", self.val_array())):
            out[key] = {"steps": steps.tolist(), "values": [float(v) for v in values]}
        return out

    def adopt_history(self, other):
        """Take over ``other``'s history (curves, records, histograms, step count): a resumed
        monitor keeps its own run object, whose static facts are its own."""
        for which in ("train", "val"):
            for pending in self._pairing[which]:
                pending.clear()
            state = other._curves[which].state()
            self._curves[which].load(state["steps"], state["values"], state["buckets"],
                                     state["width"])
        self.records[:] = other.records
        self.histograms[:] = other.histograms
        self.n_steps = other.n_steps
        self._record_grid, self._histogram_grid = other._record_grid, other._histogram_grid
        self._extra_grid = other._extra_grid
        self.compactions = other.compactions
        self._sizes, self._hist_sizes, self._bytes_after_compaction = [], [], 0
        self._judged_after_compaction = 0

    # --- keeping the budget ---------------------------------------------------------------
    def enforce_budget(self):
        """Called by the monitor once per step: cheap unless something is over budget."""
        if self.max_bytes is None:
            return
        if len(self.records) > len(self._sizes) or len(self.histograms) > len(self._hist_sizes):
            self._count_sizes()
            # judged records are thinned only when they alone are over budget (so what the
            # rules see does not depend on how many extra records the clock allowed); when
            # the records that are always kept fill the budget by themselves, compact again
            # only once a quarter more has arrived, not at every step
            total, judged_total, judged_count, histogram_total = self._totals
            if (judged_total > self.record_budget
                    and judged_total > 1.25 * self._judged_after_compaction) \
                    or judged_count > MAX_RECORDS:
                self.compact_records()
            elif (total > self.record_budget and total > 1.25 * self._bytes_after_compaction) \
                    or len(self.records) > MAX_RECORDS \
                    or len(self.records) - judged_count > MAX_EXTRA_RECORDS:
                self.compact_records(judged_too=False)
            if histogram_total > self.histogram_budget:
                self.compact_histograms()

    def _count_sizes(self):
        """Size the records and histograms that arrived since the last call; keep the totals
        (bytes of all records, of the judged ones, how many judged, bytes of histograms)."""
        if len(self._sizes) > len(self.records):     # records replaced from outside: recount
            self._sizes = []
        if not self._sizes:
            self._totals = [0, 0, 0, self._totals[3]]
        for r in self.records[len(self._sizes):]:
            size = record_bytes(r)
            self._sizes.append(size)
            self._totals[0] += size
            if getattr(r, "judged", True):
                self._totals[1] += size
                self._totals[2] += 1
        if len(self._hist_sizes) > len(self.histograms):
            self._hist_sizes = []
        if not self._hist_sizes:
            self._totals[3] = 0
        for h in self.histograms[len(self._hist_sizes):]:
            size = histogram_bytes(h)
            self._hist_sizes.append(size)
            self._totals[3] += size

    def _retally(self):
        """The record totals again, from the sizes already measured (after a compaction)."""
        judged = [b for b, r in zip(self._sizes, self.records) if getattr(r, "judged", True)]
        self._totals[:3] = [sum(self._sizes), sum(judged), len(judged)]

    def compact_records(self, judged_too=True):
        """Thin the records down to ``COMPACT_TO`` of their budget (see the policy above).

        Judged records (those the rules read; which steps they are depends on the step
        number alone) are kept in this order while they fit: the first and latest few
        (always), the evidence, the early log-spaced records, the recent window, the rest
        thinned evenly. Extra records (taken when the time budget allowed; plots only)
        fill what room is left, thinned evenly: so what the rules see never depends on
        how fast the machine was. ``judged_too=False``: only the extra records are thinned
        (when the judged ones fit by themselves)."""
        self._count_sizes()
        records, sizes = self.records, self._sizes
        n = len(records)
        if n == 0:
            return
        target_bytes = COMPACT_TO * self.record_budget
        target_count = int(COMPACT_TO * MAX_RECORDS)
        judged = [i for i in range(n) if getattr(records[i], "judged", True)]
        is_judged = set(judged)
        keep = set(judged) if not judged_too else set(judged[:3]) | set(judged[-MIN_RECENT:])
        used = sum(sizes[i] for i in keep)

        def take(indices, limit=target_bytes):
            nonlocal used
            for i in indices:
                if i in keep:
                    continue
                if used + sizes[i] > limit or len(keep) >= target_count:
                    return
                keep.add(i)
                used += sizes[i]
        # the rules read only the records before the first non-finite step: the recent
        # window and the even thinning serve those first
        cutoff = self._first_nonfinite_step() if judged_too else None
        before = [i for i in judged if cutoff is None or records[i].step < cutoff]
        if judged_too:
            take(self._evidence_indices(cutoff))
            take(i for i in self._early_indices() if i in is_judged)
            take(reversed(before), limit=min(target_bytes, used + RECENT_SHARE * self.record_budget))

        def fits(chosen):
            return (used + sum(sizes[i] for i in chosen) <= target_bytes
                    and len(keep) + len(chosen) <= target_count)
        if judged_too:
            middle = [i for i in before if i not in keep]
            chosen, self._record_grid = _thinned(records, middle, self._record_grid, fits)
            keep |= set(chosen)
            used += sum(sizes[i] for i in chosen)
            after = [i for i in judged if i not in keep and records[i].step >= cutoff] \
                if cutoff is not None else []
            chosen, _ = _thinned(records, after, self._record_grid, fits)
            keep |= set(chosen)
            used += sum(sizes[i] for i in chosen)
            self._judged_after_compaction = used
        extra = [i for i in range(n) if i not in is_judged and i not in keep]
        extra_count = int(COMPACT_TO * MAX_EXTRA_RECORDS)
        chosen, self._extra_grid = _thinned(
            records, extra, self._extra_grid,
            lambda chosen: len(chosen) <= extra_count and fits(chosen))
        kept = sorted(keep | set(chosen))
        records[:] = [records[i] for i in kept]
        self._sizes = [sizes[i] for i in kept]
        self._retally()
        self._bytes_after_compaction = self._totals[0]
        self.compactions += 1

    def compact_histograms(self):
        self._count_sizes()
        entries, sizes = self.histograms, self._hist_sizes
        n = len(entries)
        keep = set(range(min(EARLY_HISTOGRAMS, n))) | set(range(max(0, n - RECENT_HISTOGRAMS), n))
        middle = [i for i in range(n) if i not in keep]
        fixed = sum(sizes[i] for i in keep)
        def fits(chosen):
            return fixed + sum(sizes[i] for i in chosen) <= COMPACT_TO * self.histogram_budget
        chosen, self._histogram_grid = _thinned([_Stepped(e[0]) for e in entries], middle,
                                                self._histogram_grid, fits)
        kept = sorted(keep | set(chosen))
        entries[:] = [entries[i] for i in kept]
        self._hist_sizes = [sizes[i] for i in kept]
        self._totals[3] = sum(self._hist_sizes)

    def _early_indices(self):
        """The first records and those at step 0, 1, 2 and powers of two, in step order."""
        return [i for i, r in enumerate(self.records)
                if i < EARLY_RECORDS or r.step < 3 or (r.step & (r.step - 1)) == 0]

    def _evidence_indices(self, first_bad):
        """The records around the first non-finite step ``first_bad``, then those findings
        name."""
        records = self.records
        out = []
        if first_bad is not None:
            after = [i for i, r in enumerate(records) if r.step >= first_bad]
            if after and after[0] > 0:
                out.append(after[0] - 1)       # the last record before it: still finite
            out.extend(after[:NAN_EVIDENCE_RECORDS])
        wanted = self._evidence_steps()
        out.extend(i for i, r in enumerate(records) if r.step in wanted)
        return out

    def _first_nonfinite_step(self):
        from .records import record_finite
        steps, values = self.loss_array()
        bad = steps[~np.isfinite(values)]
        first = int(bad[0]) if len(bad) else None
        for r in self.records:
            if not record_finite(r):
                first = r.step if first is None else min(first, r.step)
                break
        return first

    def _evidence_steps(self):
        """Steps named by the findings of the run so far (their step and evidence steps)."""
        try:
            if self.findings_for_evidence is not None:
                found = self.findings_for_evidence(self)
            else:
                from .rules import diagnose
                judged = getattr(self, "judged_view", None)    # the records the rules read
                found = diagnose(judged() if judged else self)
        except Exception:      # a rule that fails must not break training: no evidence kept
            return set()
        return evidence_steps(found)


def evidence_steps(findings):
    """Every step a list of findings names: ``.step`` and the evidence entries about steps."""
    steps = set()
    for f in findings:
        if f.step is not None:
            steps.add(int(f.step))
        for key, value in (f.evidence or {}).items():
            if "step" not in key:
                continue
            for v in (value if isinstance(value, (list, tuple)) else [value]):
                if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
                    steps.add(int(v))
    return steps


class _Stepped:
    __slots__ = ("step",)

    def __init__(self, step):
        self.step = step


def _has_detail(record):
    """Whether a record carries the detailed statistics (histogram records)."""
    return "constant_features" in record.inputs or any(
        "absmax" in stats for stats in record.activations.values())


def _thinned(records, indices, grid, fits):
    """(chosen indices, grid): the finest grid (doubling from ``grid``) whose one-per-cell
    choice fits; nothing when even one record does not."""
    chosen = _one_per_cell(records, indices, grid)
    last_step = max((records[i].step for i in indices), default=0)
    while chosen and not fits(chosen):
        if grid > 2 * max(last_step, 1):
            return [], grid
        grid *= 2
        chosen = _one_per_cell(records, indices, grid)
    return chosen, grid


def _one_per_cell(records, indices, grid):
    """One of ``indices`` per cell of ``grid`` steps: the first with detailed statistics, else
    the first. Cells of a doubled grid hold two old cells, so thinning again keeps evenness."""
    chosen = {}
    for i in indices:
        r = records[i]
        cell = r.step // grid
        if cell not in chosen:
            chosen[cell] = i
        elif isinstance(r, StepRecord) and _has_detail(r) and not _has_detail(records[chosen[cell]]):
            chosen[cell] = i
    return sorted(chosen.values())
