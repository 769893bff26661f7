"""Which class ids reach a cross-entropy loss, and whether one of them looks like padding.

Padded sequence batches fill the tail of the shorter sequences with one id (0, or the
tokenizer's pad id). If the loss does not skip that id (``ignore_index``), the model is
trained to predict padding: the loss falls, and looks fine, because padding is the easiest
token there is. What gives padding away in the targets that reach the loss:

- one id is far more frequent than the others, and
- its occurrences come in runs (the padded tail of a row, or of a sorted batch), while
  the other ids rarely repeat next to each other (text, token streams).

A class-imbalanced classification has a frequent class too, but its occurrences sit next to
each other only as often as chance makes them; batches sorted by label put EVERY id in runs.

``summarize(sample)`` reduces a sample of target ids (host NumPy, the step's one transfer
carried it) to the few numbers a ``LossCall`` keeps; the rule lives in
``nndebug.rules.sequence``.
"""
import weakref

import numpy as np

SAMPLE_SIZE = 4096           # target ids carried to the host per call (a few KB)
CALLS_SAMPLED = 8            # only the first recorded calls: the answer does not change later
CLASS_INDEX_LOSSES = {"CrossEntropyLoss", "cross_entropy", "NLLLoss", "nll_loss"}
MAX_CLASSES = 1024           # class weights and per-class target counts kept up to this many


def class_weights(weight):
    """A loss's ``weight=`` (one number per class) as a tuple of floats, or None (no
    weight, not one per class, or more than MAX_CLASSES classes)."""
    shape = getattr(weight, "shape", None)
    if weight is None or shape is None or len(shape) != 1 or not 2 <= shape[0] <= MAX_CLASSES:
        return None
    try:
        values = weight.detach() if hasattr(weight, "detach") else weight
        values = values.tolist() if hasattr(values, "tolist") else list(values)
        return tuple(float(v) for v in values)
    except (TypeError, ValueError, RuntimeError):
        return None


def loss_options(loss_fn, kwargs=None):
    """``ignore_index``, ``reduction`` and the class weights of a loss module (its attributes)
    or of a call of a loss function (its keyword arguments, with torch's defaults); None
    where not known."""
    if kwargs is not None:
        return _with_log_input(_with_pos_weight(
            {"ignore_index": kwargs.get("ignore_index", -100),
             "reduction": kwargs.get("reduction", "mean"),
             "class_weights": class_weights(kwargs.get("weight"))},
            kwargs.get("pos_weight")), kwargs.get("log_input"))
    ignore = getattr(loss_fn, "ignore_index", None)
    return _with_log_input(_with_pos_weight(
        {"ignore_index": None if ignore is None else int(ignore),
         "reduction": getattr(loss_fn, "reduction", None),
         "class_weights": class_weights(getattr(loss_fn, "weight", None))},
        getattr(loss_fn, "pos_weight", None)),
        getattr(loss_fn, "__dict__", {}).get("log_input"))   # no AttributeError raised


def _with_log_input(options, log_input):
    """``options`` with a rate loss's ``log_input`` (PoissonNLLLoss) when it has one as a
    bool (real-bug batch 69: LOG_OF_UNBOUNDED_OUTPUT reads it)."""
    return options if not isinstance(log_input, bool) else {**options, "log_input": log_input}


def _with_pos_weight(options, pos_weight):
    """``options`` with a binary loss's ``pos_weight`` added when it has one (real-bug batch
    54: CLASS_WEIGHTS_REVERSED reads it)."""
    weights = positive_weights(pos_weight)
    return options if weights is None else {**options, "pos_weight": weights}


_LAST_POS_WEIGHT = [None, None]   # (weak ref to the tensor, its version), its values


def positive_weights(weight):
    """A binary loss's ``pos_weight=`` (one number, or one per label) as a tuple of floats,
    or None (none given, another shape, or more than MAX_CLASSES labels). The values of the
    tensor last read are kept: a loss module's pos_weight is copied to the host once, not
    on every recorded step."""
    shape = getattr(weight, "shape", None)
    if weight is None or shape is None or len(shape) > 1 or \
            (len(shape) == 1 and not 1 <= shape[0] <= MAX_CLASSES):
        return None
    version = getattr(weight, "_version", None)
    last = _LAST_POS_WEIGHT[0]
    if last is not None and last[0]() is weight and last[1] == version:
        return _LAST_POS_WEIGHT[1]
    try:
        values = weight.detach() if hasattr(weight, "detach") else weight
        values = values.reshape(-1).tolist() if hasattr(values, "tolist") else list(values)
        read = tuple(float(v) for v in values)
    except (TypeError, ValueError, RuntimeError, AttributeError):
        return None
    try:
        _LAST_POS_WEIGHT[:] = [(weakref.ref(weight), version), read]   # never kept alive
    except TypeError:          # not weakly referable (a list): read each time
        pass
    return read


def function_call_options(args, kwargs):
    """``ignore_index``, ``reduction`` and ``weight`` of an ``F.cross_entropy`` /
    ``F.nll_loss`` call (positions 4, 6 and 2 when not given by keyword; torch's defaults
    otherwise)."""
    ignore = kwargs.get("ignore_index", args[4] if len(args) > 4 else -100)
    reduction = kwargs.get("reduction", args[6] if len(args) > 6 else "mean")
    weight = kwargs.get("weight", args[2] if len(args) > 2 else None)
    return {"ignore_index": int(ignore), "reduction": reduction,
            "class_weights": class_weights(weight)}


def summarize(sample, shape=None):
    """The most frequent id, its share, and how often it (and the rest) sit in runs.

    ``sample``: 1-D target ids; ``shape``: the target's shape when the sample is all of it
    (a 2-D target is then also read down its columns: sequence-first batches pad there)."""
    ids = _whole_numbers_as_integers(np.asarray(sample).reshape(-1))
    if ids.size < 4:
        return {}
    counted = _class_counts(ids)
    if counted is not None:          # the usual case: class ids in [0, MAX_CLASSES)
        mode, mode_count = int(np.argmax(counted)), int(counted.max())
    else:                            # other ids (negative, huge, not integers): sorted
        values, counts = np.unique(ids, return_counts=True)
        mode, mode_count = values[np.argmax(counts)], int(counts.max())
    grids = [ids[None, :]]
    if shape is not None and len(shape) == 2 and int(np.prod(shape)) == ids.size:
        grids = [ids.reshape(shape), ids.reshape(shape).T]
    # the direction in which the frequent id sits most in runs counts, for both numbers
    mode_runs, others_runs = max(_in_runs(grid, grid == mode) for grid in grids)
    summary = {"target_mode": float(mode), "target_mode_share": float(mode_count / ids.size),
               "target_mode_in_runs": mode_runs, "target_others_in_runs": others_runs}
    if len(grids) == 2:              # a whole (rows, positions) target: padding ends rows
        summary["target_mode_in_tails"] = max(_in_tails(grid == mode) for grid in grids)
    if counted is None:
        valid = ids[(ids >= 0) & (ids < MAX_CLASSES)]
        if valid.size and np.issubdtype(valid.dtype, np.number):
            counted = np.bincount(valid.astype(np.int64))
    if counted is not None:
        summary["target_counts"] = tuple(counted.tolist())
    return summary


def _whole_numbers_as_integers(ids):
    """Float ids that are all whole numbers (the sample crossed to the host in the step's
    one float transfer), as int64: counted in one ``bincount`` pass instead of a sort."""
    if ids.dtype.kind != "f" or not ids.size:
        return ids
    as_integers = ids.astype(np.int64)
    return as_integers if np.array_equal(as_integers, ids) else ids


def _class_counts(ids):
    """How often each id occurs (``np.bincount``) when every id is a whole number in
    [0, MAX_CLASSES), else None. One counting pass: ``np.unique`` sorts the sample."""
    if ids.dtype.kind not in "iu":
        return None
    low, high = int(ids.min()), int(ids.max())
    if low < 0 or high >= MAX_CLASSES:
        return None
    return np.bincount(ids.astype(np.int64, copy=False), minlength=high + 1)


def _in_tails(chosen):
    """Share of the chosen positions that lie in a run reaching the end or the start of
    their row (real-bug batch 89: a padded row's pad ids all do, a tag that also occurs
    inside the rows does not)."""
    total = int(chosen.sum())
    if not total:
        return 0.0
    width = chosen.shape[1]
    ends = [np.where(side.all(1), width, np.argmax(~side, axis=1))
            for side in (chosen, chosen[:, ::-1])]
    return float(np.minimum(np.maximum(*ends), chosen.sum(1)).sum() / total)


def _in_runs(grid, chosen):
    """(share of the chosen positions, share of the others) whose left or right neighbour
    (along each row) holds the same id."""
    same = grid[:, 1:] == grid[:, :-1]
    beside = np.zeros(grid.shape, dtype=bool)
    beside[:, 1:] |= same
    beside[:, :-1] |= same
    total, beside_total = int(chosen.sum()), int(beside.sum())
    chosen_beside = int(np.count_nonzero(beside & chosen))
    others = grid.size - total
    return (chosen_beside / total if total else 0.0,
            (beside_total - chosen_beside) / others if others else 0.0)
