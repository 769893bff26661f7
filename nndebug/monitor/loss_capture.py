"""What reaches the loss on a recorded step: the model's output and the targets.

Three ways to see a loss call, best first:

1. ``watch(..., loss_fn=criterion)`` with a loss *module* (``nn.MSELoss()``, both
   frameworks): a forward hook on it while a step is recorded. With a plain function,
   ``mon.loss_fn`` is a wrapper that records the call and returns what the function returns.
2. Without ``loss_fn``: every loss module called during a recorded step is seen through
   the framework's global module hooks (``around.py`` hands the calls over).
3. Otherwise the loss tensor's graph: when its last operation is a known loss (torch's
   ``F.mse_loss``, ``F.binary_cross_entropy_with_logits``, minigrad's loss primitives) the
   inputs are read off the graph (``adapters/observing.py``).

Only a training call counts (its output requires a gradient): an evaluation loss computed
between two steps is not what is trained. The first such call of a step is kept. Its few
numbers (min/max of output and target, how far rows are from summing to 1) ride along with
the step's one host transfer; for a loss that applies log-softmax, a sample of the logits
it got becomes the record's ``output``, so DOUBLE_SOFTMAX sees what the loss saw.

The targets of the first ``TARGETS_KEPT`` calls stay available, detached, as
``run.observed.targets`` (``[(step, target tensor)]``) for probes that need targets.
"""
import math

import numpy as np

from ..adapters.observing import loss_inputs_from_graph
from ..observed import LossCall
from . import gathered_rows     # real-bug batch 160
from . import log_prob_axes     # real-bug batch 97
from . import position_losses   # real-bug batch 65
from . import placeholder_points   # real-bug batch 115
from .hooks import OUTPUT_MAX_COLUMNS, OUTPUT_ROWS
from .target_ids import (CALLS_SAMPLED, CLASS_INDEX_LOSSES, MAX_CLASSES, SAMPLE_SIZE,
                         loss_options, summarize)

TARGETS_KEPT = 4             # target batches kept (references) for probes
# real-bug batch 281 (multi-task losses): a squared error summed after the step's first loss
# call (``cross_entropy(...) + mse_loss(...)``) is not that call, and only the first is kept;
# of such later squared errors only the scale of what they compare is kept
SUMMED_SQUARED_ERRORS = {"mse_loss", "MSELoss"}
# real-bug batch 280: a binary loss over maps (masks, per-pixel labels) whose labels were
# scaled with the pixels (BINARY_TARGETS_SCALED_DOWN reads 2-D label rows, and these)
BINARY_MAP_LOSSES = {"BCELoss", "BCEWithLogitsLoss", "binary_cross_entropy",
                     "binary_cross_entropy_with_logits"}
MAP_SAMPLE = 4096            # [design] values of such a target carried to the host (16 KB)
SUMMED_CALLS_KEPT = 2        # [design] later squared errors read per step: multi-task heads
                             # number two or three; one more is never the one that swamps
SUMMED_ROWS_KEPT = 64        # [design] rows kept at most (the first recorded steps decide)
LABEL_EXACT = 1e-6           # [design] labels are exact 0s and 1s (float32 rounding only)
CALLS_KEPT = 256             # loss calls kept at most: memory stays bounded on long runs
# losses that apply log-softmax to their input (their input should be logits)
LOG_SOFTMAX_LOSSES = {"CrossEntropyLoss", "cross_entropy"}
# element-wise regression losses whose per-sample values are read for their spread across the
# batch (real-bug batch 335): a squared or an absolute error per element
SQUARED_ERROR_LOSSES = {"MSELoss", "mse_loss"}
ABSOLUTE_ERROR_LOSSES = {"L1Loss", "l1_loss", "SmoothL1Loss", "smooth_l1_loss", "HuberLoss",
                         "huber_loss"}
COUNT_AT_LEAST = 1.0         # [design] whole-number class scores reaching this are counts
                             # (spike counts, votes), not logits floored by a ReLU (batch 207)
FLOOR_ABOVE = -30.0          # [design] a tied lowest score above this is a floor, not a mask:
                             # masks use -inf or -1e4..-1e9; log-probabilities of a floored
                             # class stay above -30 (a probability of 1e-13)


def loss_name(loss_fn):
    """How a loss is named in findings: its class for a module, else its function name."""
    name = getattr(loss_fn, "__name__", None)
    return name if name and name != "<lambda>" else type(loss_fn).__name__


class LossCapture:
    """Keeps the first training loss call of each recorded step (see the module doc)."""

    def __init__(self, adapter, observed, loss_fn=None):
        self.adapter, self.xp, self.observed = adapter, adapter.xp, observed
        self.loss_fn = loss_fn
        self.loss_module = loss_fn if loss_fn is not None and _is_module(adapter, loss_fn) \
            else None
        self.call = None         # (name, output, target) of this recorded step
        self.summed = []         # [(name, output, target)]: later squared errors of the step
        self.options = {}        # the call's ignore_index / reduction (target_ids.py)
        self.armed = False
        self._handle = None

    # --- on and off (with the step's other hooks) ------------------------------------------
    def arm(self):
        self.call, self.armed = None, True
        self.summed = []
        if self.loss_module is not None:
            self._handle = self.adapter.add_forward_hook(self.loss_module, self._on_loss_module)

    def disarm(self):
        self.armed = False
        if self._handle is not None:
            self._handle.remove()
            self._handle = None

    # --- the three ways in -------------------------------------------------------------
    def wrapped(self):
        """``loss_fn`` as the user calls it: a loss module as it is (its hook records the
        call), a function wrapped so that calls are recorded while a step is recorded."""
        loss_fn = self.loss_fn
        if loss_fn is None or self.loss_module is not None:
            return loss_fn

        def recorded_loss(output, target, *args, **kwargs):
            self.offer(loss_name(loss_fn), output, target, loss_options(loss_fn, kwargs))
            return loss_fn(output, target, *args, **kwargs)
        return recorded_loss

    def _on_loss_module(self, module, inputs, output):
        if len(inputs) >= 1:
            self.offer(type(module).__name__, inputs[0], inputs[1] if len(inputs) > 1 else None,
                       loss_options(module))

    def offer(self, name, output, target, options=None):
        """A loss call was seen; kept when it is this recorded step's first training call
        (a later squared error of the step: its scale only, ``summed``)."""
        if not self.armed or not self.adapter.is_tensor(output):
            return
        if not getattr(output, "requires_grad", False):
            return                # an evaluation loss (no graph): not what is trained
        if self.call is not None:
            if name in SUMMED_SQUARED_ERRORS and len(self.summed) < SUMMED_CALLS_KEPT and \
                    len(self.observed.summed_errors) < SUMMED_ROWS_KEPT and \
                    self.adapter.is_tensor(target) and _size(output) > 0:
                self.summed.append((name, self.adapter.detach(output),
                                    self.adapter.detach(target)))
            return
        if _size(output) == 0:
            return                # a loss over no rows (a batch without positives): it shows
                                  # nothing, and a later call of the step may
        self.call = (name, self.adapter.detach(output),
                     self.adapter.detach(target) if self.adapter.is_tensor(target) else None)
        self.options = {**(options or {}), "viewed_from": viewed_from(output)}

    def from_graph(self, loss):
        """Way 3: read the loss call off the loss tensor when no hook saw one this step."""
        if self.call is not None or not self.adapter.is_tensor(loss):
            return
        found = loss_inputs_from_graph(self.adapter.framework, loss)
        if found is not None and _size(found[1]) > 0:
            name, output, target = found
            self.call = (name, self.adapter.detach(output),
                         self.adapter.detach(target) if self.adapter.is_tensor(target) else None)
            self.options = {"viewed_from": viewed_from(output)}

    # --- into the step's one transfer, and back --------------------------------------------
    def pack(self, packet):
        if self.call is None:
            return
        name, output, target = self.call
        xp = self.xp
        for i, (_, summed_output, summed_target) in enumerate(self.summed):
            packet.add(("summed_error", i, "output"), xp.amax(xp.abs(xp.asfloat(summed_output))))
            packet.add(("summed_error", i, "target"), xp.amax(xp.abs(xp.asfloat(summed_target))))
        out = xp.asfloat(output)
        low, high = xp.aminmax(out)
        packet.add(("loss_call", "output_min"), low)
        packet.add(("loss_call", "output_max"), high)
        if out.ndim > 2 and 2 <= out.shape[1] <= OUTPUT_MAX_COLUMNS:
            # (N, C, d1, ...): axis 1 is the class axis of the class-index losses (a language
            # model's (B, V, T) scores; a segmentation's (B, C, H, W)): rows along it
            packet.add(("loss_call", "row_sum_error"), xp.amax(xp.abs(xp.sum(out, axis=1) - 1)))
        if out.ndim == 2 and 2 <= out.shape[1] <= OUTPUT_MAX_COLUMNS:
            packet.add(("loss_call", "row_sum_error"), xp.amax(xp.abs(xp.sum(out, axis=1) - 1)))
            # the first rows ride along: the sample DOUBLE_SOFTMAX reads, and the scores
            # whose floor take() looks for on the host (a dozen tiny operations there cost
            # less than on the device, where each is a kernel call)
            if name in LOG_SOFTMAX_LOSSES:
                packet.add(("loss_call", "sample"), out[:OUTPUT_ROWS])
            elif name in CLASS_INDEX_LOSSES and out.shape[1] >= 3:
                packet.add(("loss_call", "scores"), out[:OUTPUT_ROWS])
        if name in CLASS_INDEX_LOSSES and out.ndim >= 2 and 2 <= out.shape[1] <= MAX_CLASSES:
            packet.add(("loss_call", "picked"), classes_picked(xp, out))
        if target is not None and target.ndim >= 0 and _size(target) > 0:
            t = xp.asfloat(target)
            low, high = xp.aminmax(t)
            packet.add(("loss_call", "target_min"), low)
            packet.add(("loss_call", "target_max"), high)
            if (name in CLASS_INDEX_LOSSES and _integer_dtype(target)
                    and len(self.observed.loss_calls) < CALLS_SAMPLED):
                packet.add(("loss_call", "target_ids"),
                           xp.reshape(t, (-1,))[:SAMPLE_SIZE])    # see target_ids.py
            elif (t.ndim == 2 and tuple(t.shape) == tuple(out.shape) and
                  t.shape[1] <= OUTPUT_MAX_COLUMNS and not _integer_dtype(target) and
                  len(self.observed.loss_calls) < CALLS_SAMPLED):
                packet.add(("loss_call", "target_rows"), t[:OUTPUT_ROWS])   # label_rows()
            elif (name in BINARY_MAP_LOSSES and t.ndim > 2 and
                  tuple(t.shape) == tuple(out.shape) and not _integer_dtype(target) and
                  len(self.observed.loss_calls) < CALLS_SAMPLED):
                packet.add(("loss_call", "target_spread"), spread_sample(xp, t))   # map_level()
        self._pack_sample_losses(packet, name, out, target)    # (batch 335)
        position_losses.pack(packet, name, output, target, self.options,
                             self.observed)   # per-position losses (batch 65)
        log_prob_axes.pack(packet, name, out, len(self.observed.loss_calls))   # (batch 97)
        placeholder_points.pack(packet, name, output, target, len(self.observed.loss_calls),
                                self.options.get("reduction"))   # (batch 115)

    def _pack_sample_losses(self, packet, name, out, target):
        """(real-bug batch 335) The mean and spread across the batch of each sample's error
        (squared for an MSE, absolute for an L1 or Huber loss), for the loss's own noise: a
        batch mean of heavy-tailed errors (a price series' crash days) swings from batch to
        batch far more than one of Gaussian errors, on a healthy run."""
        squared = name in SQUARED_ERROR_LOSSES
        if not (squared or name in ABSOLUTE_ERROR_LOSSES) or target is None or \
                len(out.shape) == 0 or out.shape[0] < 2 or \
                tuple(target.shape) != tuple(out.shape):
            return
        xp = self.xp
        diff = out - xp.asfloat(target)
        errors = diff * diff if squared else xp.abs(diff)
        per_sample = xp.mean(xp.reshape(errors, (out.shape[0], -1)), axis=1)
        mean, spread = xp.mean_std(per_sample)
        packet.add(("loss_call", "sample_loss_mean"), mean)
        packet.add(("loss_call", "sample_loss_std"), spread)

    def take(self, values, record):
        """Turn this step's host values into a ``LossCall`` (and the logits sample into
        ``record.output``)."""
        if self.call is None:
            return
        name, output, target = self.call
        self.call = None
        self._take_summed(values, record.step, name)
        if len(self.observed.loss_calls) >= CALLS_KEPT:
            return

        def value(stat):
            v = values.get(("loss_call", stat))
            return None if v is None else float(v[0])
        row_sum = value("row_sum_error")
        floored_rows = floored_units = None
        scores = values.get(("loss_call", "sample"), values.get(("loss_call", "scores")))
        loss_rows = model_rows = None
        if scores is not None and len(output.shape) == 2:
            scores = scores.reshape(min(OUTPUT_ROWS, output.shape[0]), output.shape[1])
            if name in CLASS_INDEX_LOSSES and output.shape[1] >= 3:
                floored_rows, floored_units = floored_scores(scores)
            loss_rows, model_rows = gathered_rows.compare(    # (batch 160) record.output: the
                scores, record.output, len(self.observed.loss_calls))   # model's own rows
        class_mass, batch_mass = log_prob_axes.take(values, tuple(output.shape), name)   # (97)
        call = LossCall(step=record.step, loss=name, output_shape=tuple(output.shape),
                        target_shape=None if target is None else tuple(target.shape),
                        output_min=_or_nan(value("output_min")),
                        output_max=_or_nan(value("output_max")), row_sum_error=row_sum,
                        target_min=_or_nan(value("target_min")),
                        target_max=_or_nan(value("target_max")),
                        target_integer=None if target is None else _integer_dtype(target),
                        floored_rows=None if floored_rows is None else float(floored_rows),
                        floored_units=None if floored_units is None else int(floored_units),
                        **self.options, **self._target_summary(values, target),
                        **label_rows(values.get(("loss_call", "target_rows")), target),
                        **map_level(values.get(("loss_call", "target_spread"))),
                        label_shares=label_shares(values.get(("loss_call", "target_rows")),
                                                  target),
                        predicted_classes=_picked_ids(values.get(("loss_call", "picked"))),
                        class_mass_error=class_mass, batch_mass_error=batch_mass,
                        distinct_rows=loss_rows, model_distinct_rows=model_rows,
                        sample_loss_cv=_spread_over_mean(value("sample_loss_mean"),
                                                         value("sample_loss_std")))
        self.observed.loss_calls.append(call)
        position_losses.take(values, self.observed, record.step)   # (batch 65)
        placeholder_points.take(values, self.observed, record.step, name)   # (batch 115)
        sample = values.get(("loss_call", "sample"))
        if sample is not None:
            rows = min(OUTPUT_ROWS, output.shape[0])
            record.output = sample.reshape(rows, output.shape[1]).astype(float)
        if target is not None and len(self.observed.targets) < TARGETS_KEPT:
            self.observed.targets.append((record.step, target))


    def _take_summed(self, values, step, first):
        """The step's later squared errors into ``run.observed.summed_errors``: ``(step,
        loss, its output's and its target's largest magnitude, the step's first loss)``."""
        summed, self.summed = self.summed, []
        for i, (name, _, _) in enumerate(summed):
            output = values.get(("summed_error", i, "output"))
            target = values.get(("summed_error", i, "target"))
            if output is None or target is None:
                continue
            self.observed.summed_errors.append((int(step), name, float(output[0]),
                                                float(target[0]), first))

    def _target_summary(self, values, target):
        ids = values.get(("loss_call", "target_ids"))
        if ids is None:
            return {}
        return summarize(ids, tuple(target.shape) if ids.size == _size(target) else None)


def viewed_from(tensor):
    """The shape of the tensor ``tensor`` is a plain view of (torch's ``_base``: no copy was
    made on the way), when its number of dimensions differs; else None (not a view, a view
    of the same rank, a framework without views). One attribute read: a loss call's input
    made by ``scores.view(-1, C)`` tells what it was flattened from, which shapes alone
    cannot (``rules/class_axis.py``)."""
    base = getattr(tensor, "_base", None)
    shape = getattr(base, "shape", None)
    if shape is None or len(shape) == len(getattr(tensor, "shape", ())):
        return None
    return tuple(int(n) for n in shape)


def classes_picked(xp, scores):
    """1.0 for each class (axis 1 of ``scores``: (batch, classes, ...)) that is some row's
    or position's highest score, else 0.0: one vector of C values for the step's transfer,
    from a max over the classes, a comparison and a max over everything else (a tie
    counts for each class in it)."""
    top = xp.reshape(xp.amax(scores, axis=1), (scores.shape[0], 1) + tuple(scores.shape[2:]))
    picked = xp.asfloat(scores >= top)
    return xp.amax(picked, axis=(0,) + tuple(range(2, len(scores.shape))))


def _picked_ids(picked):
    """The class ids ``classes_picked`` marked, as a tuple (None when it was not packed)."""
    if picked is None:
        return None
    return tuple(int(i) for i in np.flatnonzero(np.asarray(picked).reshape(-1) > 0.5))


def label_rows(rows, target):
    """What the first rows of a 2-D float target say when they are labels (every value an
    exact 0 or 1): ``LossCall``'s ``label_rows``, ``one_hot_rows``, ``multi_hot_rows`` and
    ``max_labels_in_row``; ``label_rows`` 0 alone for probabilities, scores or values.
    ``rows``: the host values the step's one transfer carried (None when none were packed:
    nothing is said)."""
    if rows is None or not rows.size:
        return {}
    rows = rows.reshape(-1, target.shape[1])
    zero = np.abs(rows) < LABEL_EXACT
    if not np.all(zero | (np.abs(rows - 1) < LABEL_EXACT)):          # not labels; 0 and one
        level = _other_level(rows[~zero]) if zero.any() else None     # other level: scaled
        return {"label_rows": 0} if level is None else {"label_rows": 0, "label_level": level}
    ones = np.rint(rows).sum(axis=1)
    return {"label_rows": int(len(rows)), "one_hot_rows": int(np.sum(ones == 1)),
            "multi_hot_rows": int(np.sum(ones >= 2)), "max_labels_in_row": int(ones.max())}


def spread_sample(xp, target):
    """``MAP_SAMPLE`` values of ``target`` taken at even strides over all of it (the first
    values of a mask are often one image's empty corner)."""
    flat = xp.reshape(target, (-1,))
    stride = max(1, int(flat.shape[0]) // MAP_SAMPLE)
    return flat[::stride][:MAP_SAMPLE]


def map_level(sample):
    """A binary loss's N-D target (a segmentation mask, per-pixel labels) read like
    ``label_rows`` reads 2-D rows, for the one thing said of it: 0 and one other level,
    ``LossCall.label_level`` (real-bug batch 280: uint8 masks divided by 255 on their way
    to a BCE loss); nothing for 0/1 labels, soft maps and unsampled calls."""
    if sample is None or not sample.size:
        return {}
    zero = np.abs(sample) < LABEL_EXACT
    if not zero.any() or np.all(zero | (np.abs(sample - 1) < LABEL_EXACT)):
        return {}
    level = _other_level(sample[~zero])
    return {} if level is None else {"label_rows": 0, "label_level": level}


def _other_level(nonzero):
    """The one value every non-zero entry of a 0/x target holds (up to float32 rounding), or
    None: labels scaled by a constant keep two levels, probabilities and scores many."""
    if not nonzero.size:
        return None
    level = float(nonzero.flat[0])
    return level if np.all(np.abs(nonzero - level) <= LABEL_EXACT * max(1.0, abs(level))) \
        else None


def label_shares(rows, target):
    """Each column's share of 1s in the first rows of a 2-D 0/1 label target (``LossCall``'s
    ``label_shares``: how rare each label's positives are), None when the rows were not read
    or are not labels."""
    if rows is None or not rows.size:
        return None
    rows = rows.reshape(-1, target.shape[1])
    if not np.all((np.abs(rows) < LABEL_EXACT) | (np.abs(rows - 1) < LABEL_EXACT)):
        return None
    return tuple(float(v) for v in np.rint(rows).mean(axis=0))


def floored_scores(scores):
    """(share of rows, columns) of ``scores`` (a NumPy array: rows of class scores or
    log-probabilities, the first rows of a loss call, carried by the step's one transfer)
    cut at a floor, as a ReLU or clamp on the logits cuts them: rows whose minimum is
    shared exactly by several columns and lies above ``FLOOR_ABOVE``, and the columns at
    that floor in every row. Distinct real scores never tie exactly; a mask (-inf, -1e9)
    lies far below the floor. Rows without a tie at their minimum (every healthy step) are
    settled in three operations, before anything dearer is looked at."""
    if _no_tie_at_minimum(scores):
        return 0.0, 0
    # (real-bug batch 207) scores that are all whole numbers, some of them 1 or more, are
    # counts - a spiking network's output spike counts, votes - not real logits cut at a
    # floor: many classes at 0 spikes tie there as discrete values do. A ReLU on real
    # logits leaves its live scores fractional; an output dead for every sample (all 0)
    # still counts as floored
    if scores.max() >= COUNT_AT_LEAST and np.array_equal(scores, np.round(scores)):
        return 0.0, 0
    # (real-bug batch 121's captions, seen since batch 135) columns equal in every row and
    # varying from row to row are one score given twice - a CLIP batch's identical captions
    # embed identically - not scores cut at a floor: each is counted once (a column stuck at
    # one value in every row, a dead unit, stays as it is). Dropping repeated columns keeps
    # each row's minimum and can only remove ties, so the check above stays exact.
    _, first = np.unique(scores, axis=1, return_index=True)
    if len(first) < scores.shape[1]:
        constant = np.ptp(scores, axis=0) == 0
        keep = np.zeros(scores.shape[1], dtype=bool)
        keep[first] = True
        scores = scores[:, keep | constant]
    lowest = scores.min(axis=1, keepdims=True)
    at_floor = scores == lowest
    if at_floor.sum() <= scores.shape[0]:        # each row's minimum is its own: no tie
        return 0.0, 0
    tied = (at_floor.sum(axis=1) >= 2) & (lowest[:, 0] > FLOOR_ABOVE)
    return float(tied.mean()), int((at_floor & tied[:, None]).all(axis=0).sum())


def _no_tie_at_minimum(scores):
    """True when every row's lowest score is held by one column only."""
    return (scores == scores.min(axis=1, keepdims=True)).sum() <= scores.shape[0]


def _is_module(adapter, value):
    """A module of the model's framework (it has forward hooks), not a plain function."""
    return hasattr(value, "register_forward_hook") and hasattr(value, "named_modules")


def _size(tensor):
    size = 1
    for n in tensor.shape:
        size *= n
    return size


def _integer_dtype(tensor):
    name = str(getattr(tensor, "dtype", ""))
    return any(word in name for word in ("int", "long", "bool"))


def _spread_over_mean(mean, spread):
    """The per-sample errors' spread over their mean (None when not read, not finite or the
    mean is 0: a saved file then holds no NaN, and a loaded call equals the one saved)."""
    if mean is None or spread is None or not mean > 0 or not math.isfinite(spread) or \
            not math.isfinite(mean):
        return None
    return float(spread) / float(mean)


def _or_nan(value):
    return float("nan") if value is None else value
