"""Per-feature means and spreads of a tabular model's inputs, in training and in validation
(VALIDATION_COLUMNS_REORDERED, VALIDATION_SCALED_ON_ITSELF:
``nndebug.rules.validation_features``).

A table's columns can reach the model in another order at evaluation than in training (the
held-out frame rebuilt with its columns sorted, one-hot dummies made separately on the test
rows with a missing category appended last), or scaled by a scaler fitted on the held-out
rows themselves. The input's overall mean and spread stay the same, so the whole-input
statistics (``validation_inputs.py``) cannot tell; each column's can.

Training side: a forward pre-hook on the model adds up, on the device, the column sums and
sums of squares of the first floating-point input of the first ``TRAINING_FORWARDS``
forwards that build a graph, when that input is a table (2-D, at most ``MAX_FEATURES``
columns); then it goes. Validation side: when a step passes ``val_loss``, the inputs
``validation_inputs.py`` held for that pass (``take``) are summed the same way, for the
first ``PASSES_KEPT`` passes. One host transfer per kept pass (and one for the training
sums, at the first). Cost: a few device reductions on the first training forwards; nothing
after them.

Kept in ``run.observed.feature_moments`` as ``(kind, step, rows, means, stds)`` with kind
"train" or "validation" and the per-column means and population stds as lists (a declared
field of ``nndebug.observed.Observed``: saved and loaded with the run).
"""
import numpy as np

TRAINING_FORWARDS = 16  # [design] training batches summed (1,000 rows at batch size 64)
PASSES_KEPT = 2         # [design] validation passes summed (the answer is in the first)
MAX_FEATURES = 4096     # [design] wider inputs are images or sequences, not table rows


class FeatureMoments:
    def __init__(self, adapter, observed, root, current_step, on_error):
        self.adapter, self.observed = adapter, observed
        self._current_step, self._on_error = current_step, on_error
        self._sums = None                 # [rows, column sums, column sums of squares]
        self._first_step = None
        self._forwards = 0
        self._handle = None
        if adapter.framework == "torch" and root is not None:
            import torch
            self._torch = torch
            self._grad_enabled = torch.is_grad_enabled
            self._handle = adapter.add_forward_pre_hook(root, self._before_forward)

    def _table(self, inputs):
        """The first floating-point input when it is a table of rows, else None."""
        leaves = self.adapter.float_leaves(inputs)
        x = leaves[0] if leaves else None
        shape = tuple(getattr(x, "shape", ()))
        if len(shape) != 2 or shape[0] < 2 or not 2 <= shape[1] <= MAX_FEATURES:
            return None
        return self.adapter.detach(x).float()

    def _before_forward(self, module, inputs):
        if not self._grad_enabled():      # evaluation forwards: take() sees them
            return
        try:
            x = self._table(inputs)
            if x is None or (self._sums is not None and x.shape[1] != self._sums[1].shape[0]):
                self.close()              # not a table model (or its width changed)
                return
            if self._sums is None:
                self._first_step = self._current_step()
                self._sums = [0, x.new_zeros(x.shape[1]), x.new_zeros(x.shape[1])]
            self._sums[0] += x.shape[0]
            self._sums[1] += x.sum(0)
            self._sums[2] += (x * x).sum(0)
            self._forwards += 1
            if self._forwards >= TRAINING_FORWARDS:
                self._remove_hook()
        except Exception as error:        # never break the user's forward pass
            self._on_error(error)
            self.close()

    def _moments(self, rows, sums, squares):
        sums, squares = (self.adapter.to_numpy(v).astype(np.float64) for v in (sums, squares))
        means = sums / rows
        stds = np.sqrt(np.maximum(squares / rows - means * means, 0.0))
        return [float(v) for v in means], [float(v) for v in stds]

    def take(self, held, step):
        """``held``: ``[(step, input or None, ...)]``, the validation pass's inputs."""
        kept = self.observed.feature_moments
        if self._sums is None or sum(k[0] == "validation" for k in kept) >= PASSES_KEPT:
            return
        try:
            width = self._sums[1].shape[0]
            tables = [x for at, x, *_ in held if at == step and x is not None
                      and tuple(x.shape)[1:] == (width,) and len(x.shape) == 2]
            if not tables:
                return
            if not any(k[0] == "train" for k in kept):
                kept.append(("train", int(self._first_step), int(self._sums[0]))
                            + tuple(self._moments(*self._sums)))
            x = self._torch.cat([t.float() for t in tables], dim=0)
            kept.append(("validation", int(step), int(x.shape[0]))
                        + tuple(self._moments(x.shape[0], x.sum(0), (x * x).sum(0))))
        except Exception as error:        # never break the user's step
            self._on_error(error)

    def _remove_hook(self):
        if self._handle is not None:
            self._handle.remove()
            self._handle = None

    def close(self):
        self._remove_hook()
        if self._forwards == 0:
            self._sums = None
