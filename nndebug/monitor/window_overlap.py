"""Validation windows that overlap training windows (VALIDATION_WINDOWS_OVERLAP_TRAINING,
``nndebug.rules.window_overlap``).

Sliding windows cut from one series share all but a step of their values with their
neighbours. Shuffled before the train/validation split, nearly every validation window has
its neighbours, shifted by a step or a few, in the training set: the validation loss then
measures interpolation between trained windows, not a forecast of unseen time. A split in
time leaves only the few windows at the boundary overlapping.

What it keeps (torch only), once ``mon.step(loss, val_loss=...)`` has shown that the run
validates (a run without ``val_loss`` pays nothing):
- the first float input of the model's next training forwards (gradients on), cloned, up
  to TRAIN_ROWS rows;
- the first float input of its next evaluation forwards (no gradient), up to EVAL_ROWS
  rows;
both through one forward pre-hook, removed once both are kept.
Only inputs shaped (batch, length) or (batch, a, b) with at most MAX_ROW_VALUES values
per row are kept (windows of a series; not images); a first input of another shape ends
that side at once. The cost: one pre-hook call per forward and a clone of the input, on the
few dozen forwards after the first validation, none afterwards (at most 12 MB of kept
rows); the comparison (NumPy, on the host) runs when findings are asked for.

``summary()`` compares them: for each shift of 1..MAX_SHIFT steps along a time axis, how
many evaluation rows equal a training row shifted by that many steps (their overlapping
parts exactly equal), and how many equal a training row outright. The rule judges.
"""
import numpy as np

from .validation_rows import compare_splits

TRAIN_ROWS = 2048          # [design] training rows kept (the first batches)
EVAL_ROWS = 1024           # [design] evaluation rows kept
MAX_ROW_VALUES = 1024      # [design] values per row kept at most: windows, not images
MAX_SHIFT = 8              # [design] shifts tried, in steps (a window stride up to 8)
MIN_COMPARED = 8           # [design] values the shifted parts must share to count as equal
MIN_DISTINCT = 6           # [design] distinct values a row's compared part needs: constant
                           # or nearly constant rows (padding, binary flags) match by chance


class WindowOverlap:
    def __init__(self, adapter, observed, root, on_error):
        self.adapter, self.observed, self._on_error = adapter, observed, on_error
        self.train, self.evaluations = [], []      # kept input batches (framework tensors)
        self._train_rows = self._eval_rows = 0
        self._hook = None
        self._training_done = self._evaluation_done = False
        self._grad_enabled = None
        self._started = False
        if adapter.framework == "torch" and root is not None:
            import torch
            self._grad_enabled = torch.is_grad_enabled
            self.root = root

    # --- keeping inputs ------------------------------------------------------------------
    def _window_batch(self, inputs):
        """The first float input when it looks like a batch of windows, cloned; else None."""
        leaves = self.adapter.float_leaves(inputs)
        if not leaves:
            return None
        x = leaves[0]
        shape = tuple(x.shape)
        if len(shape) not in (2, 3) or shape[0] < 2 or \
                int(np.prod(shape[1:])) > MAX_ROW_VALUES:
            return None
        return self.adapter.detach(x).clone()

    def saw_validation(self):
        """The run validates: keep the inputs of its next training and evaluation forwards
        (once; a run that never validates pays nothing). One pre-hook serves both kinds,
        told apart by whether gradients are on."""
        if self._grad_enabled is None or self._started:
            return
        self._started = True
        self._hook = self.adapter.add_forward_pre_hook(self.root, self._before_forward)

    def _before_forward(self, module, inputs):
        training = self._grad_enabled()
        if self._training_done if training else self._evaluation_done:
            return
        try:
            batch = self._window_batch(inputs)
            if training:
                if batch is not None:
                    self.train.append(batch)
                    self._train_rows += int(batch.shape[0])
                done = batch is None or self._train_rows >= TRAIN_ROWS
            else:
                if batch is not None:
                    self.evaluations.append(batch[:EVAL_ROWS - self._eval_rows])
                    self._eval_rows += int(self.evaluations[-1].shape[0])
                done = batch is None or self._eval_rows >= EVAL_ROWS
        except Exception as error:                # never break the user's forward pass
            done = True
            self._on_error(error)
        if done:                                  # not windows, or enough of them
            self._stop("_training_done" if training else "_evaluation_done")

    def _stop(self, side):
        setattr(self, side, True)
        if self._training_done and self._evaluation_done:
            self.close()

    # --- comparing ---------------------------------------------------------------------
    def summarize(self):
        """Set ``observed.window_overlap`` from what is kept (see ``compare``)."""
        try:
            if self.train and self.evaluations:
                train = _rows(self.adapter, self.train)
                batches = [np.asarray(self.adapter.to_numpy(b), dtype=np.float64)
                           for b in self.evaluations]
                evaluations = _rows(self.adapter, batches)
                if train is not None and evaluations is not None:
                    self.observed.window_overlap = compare(train, evaluations)
                    # the same rows, batch by batch: rows in both splits, and how many rows
                    # each split holds (validation_rows.py), from one pass
                    self.observed.validation_row_matches, self.observed.split_sizes = \
                        compare_splits(train, batches)
        except Exception as error:
            self._on_error(error)

    def close(self):
        if self._hook is not None:
            self._hook.remove()
            self._hook = None


def _rows(adapter, batches):
    """The kept batches as one float64 array, or None when their row shapes differ."""
    arrays = [np.asarray(adapter.to_numpy(b), dtype=np.float64) for b in batches]
    if len({a.shape[1:] for a in arrays}) != 1:
        return None
    return np.concatenate(arrays)


def compare(train, evaluations):
    """How the evaluation rows overlap the training rows, both (n, length) or (n, a, b).

    Repeated rows count once (an evaluation pass sees the same rows every time).
    Returns ``{"rows": evaluation rows compared, "train_rows": ..., "exact": evaluation rows
    equal to a training row, "shifted": [(axis, shift, rows matched)]}``: a row is matched at
    a shift s when its first length - s steps equal the last length - s steps of a training
    row, or its last length - s steps equal a training row's first (the windows start s
    steps apart). A 3-D row is tried along both of its axes (time first or features first).
    """
    train, evaluations = np.unique(train, axis=0), np.unique(evaluations, axis=0)
    informative = np.array([len(np.unique(row)) >= MIN_DISTINCT for row in evaluations])
    exact_keys = {row.tobytes() for row in train}
    exact = int(sum(row.tobytes() in exact_keys for row in evaluations[informative]))
    shifted = []
    kept = evaluations[informative]
    for axis in range(1, train.ndim):
        length = train.shape[axis]
        for shift in range(1, min(MAX_SHIFT, length - MIN_COMPARED) + 1):
            head = _keys(train, axis, 0, length - shift)       # a training row's start
            tail = _keys(train, axis, shift, length)           # and its end
            later = _parts(kept, axis, shift, length)
            earlier = _parts(kept, axis, 0, length - shift)
            matched = sum(1 for a, b in zip(later, earlier)
                          if len(np.unique(a)) >= MIN_DISTINCT and
                          (a.tobytes() in head or b.tobytes() in tail))
            shifted.append((axis, shift, int(matched)))
    return {"rows": int(informative.sum()), "train_rows": len(train), "exact": exact,
            "shifted": shifted}


def _parts(rows, axis, start, stop):
    """Each row's steps start..stop-1 along ``axis``, contiguous (their bytes compare)."""
    return np.ascontiguousarray(np.take(rows, range(start, stop), axis=axis))


def _keys(rows, axis, start, stop):
    """The bytes of each row's steps start..stop-1 along ``axis`` (a set, for look-ups)."""
    return {row.tobytes() for row in _parts(rows, axis, start, stop)}
