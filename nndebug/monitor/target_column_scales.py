"""The spread of each target column of a multi-output regression loss
(TARGET_COLUMNS_ON_DIFFERENT_SCALES, ``nndebug.rules.target_columns``).

One ``MSELoss`` over several target columns adds their squared errors. When the columns
are in different units (a rate of order 0.1 beside a level of order 10, a price beside a
fraction), the large column's errors are hundreds of times the small one's: the loss and
its gradient are the large column's, the shared layers are shaped for it alone, and the
small column is fitted from features made for the other - poorly, while the loss looks
fine. Standardising each column (and undoing it on the predictions) gives every output the
same say.

What it keeps (torch, training calls of regression losses, as a module outside the model
or as a function): a detached reference to the target of the first ``KEPT_CALLS`` calls
whose target's last axis holds ``2..MAX_COLUMNS`` columns (a handful of outputs, not an
image or a sequence; no copy, no host transfer during the step). Read when findings are
asked for: each column's standard deviation over every other axis. Kept as
``run.observed.target_column_scales``: ``[(step, loss name, rows, [std per column])]``.
Cost: nothing after the first KEPT_CALLS calls; on those, a reference kept.

The same targets, when they hold exactly four columns, also give how often each pair of
columns 2 and 0, 3 and 1 is out of order (``run.observed.box_corner_orders``: ``[(step,
rows, rows with column 2 below column 0, rows with column 3 below column 1, [min of each
column], [max of each column])]``): boxes given as corners (x1, y1, x2, y2) keep x2 >= x1
and y2 >= y1 on every row unless a flip moved the corners without swapping them
(LABELS_MISALIGNED, ``rules/label_drift.py``).
"""
import numpy as np

REGRESSION_LOSSES = {"MSELoss", "L1Loss", "SmoothL1Loss", "HuberLoss", "mse_loss", "l1_loss",
                     "smooth_l1_loss", "huber_loss"}
KEPT_CALLS = 3             # [design] training calls read: a few batches show the columns
MAX_COLUMNS = 16           # [design] more columns than this are pixels, steps or features
                           # reconstructed (whose own scales differ on purpose: an image's
                           # border pixels barely vary), not a handful of separate outputs


class TargetColumnScales:
    """Keeps the targets of the first multi-column regression loss calls (module doc)."""

    def __init__(self, adapter, observed, current_step, on_error):
        self.adapter, self.observed = adapter, observed
        self.current_step, self.on_error = current_step, on_error
        self.kept = []             # [(step, loss name, detached target)]

    def offer_module(self, module, inputs, output):
        """A loss module outside the model ran: (output, target)."""
        if len(inputs) >= 2:
            self._keep(type(module).__name__, inputs[0], inputs[1], output)

    def offer_function(self, name, args, kwargs):
        """``F.mse_loss(input, target, ...)`` and the other regression losses."""
        given = {**dict(zip(("input", "target"), args)), **kwargs}
        if "input" in given and "target" in given:
            self._keep(name, given["input"], given["target"], given["input"])

    def _keep(self, name, prediction, target, graph_tensor):
        try:
            if name not in REGRESSION_LOSSES or len(self.kept) >= KEPT_CALLS:
                return
            if not getattr(graph_tensor, "requires_grad", False):
                return             # an evaluation call: not what is trained
            if not (self.adapter.is_tensor(target) and self.adapter.is_tensor(prediction)):
                return
            shape = tuple(target.shape)
            if len(shape) < 2 or not 2 <= shape[-1] <= MAX_COLUMNS or \
                    tuple(prediction.shape) != shape:
                return             # one output, many columns, or broadcast (another rule)
            if np.prod(shape[:-1]) < 2:
                return             # fewer than two rows (the positives of a batch that has
                                   # none): no spread to read
            self.kept.append((self.current_step(), name, self.adapter.detach(target)))
        except Exception as error:  # never break the user's step
            self.on_error(error)

    def read(self):
        """Each kept target's column spreads (host copies, once, when findings are asked)."""
        try:
            found, corners = [], []
            for step, name, target in self.kept:
                values = np.asarray(self.adapter.to_numpy(target), dtype=np.float64)
                columns = values.reshape(-1, values.shape[-1])
                step = -1 if step is None else int(step)
                found.append((step, name, int(columns.shape[0]),
                              [float(s) for s in columns.std(axis=0)]))
                if columns.shape[1] == 4:
                    corners.append(corner_order(step, columns))
            if found or not self.observed.target_column_scales:
                self.observed.target_column_scales = found
            if corners or not self.observed.box_corner_orders:
                self.observed.box_corner_orders = corners
        except Exception as error:
            self.on_error(error)


def corner_order(step, columns):
    """(step, rows, rows whose column 2 lies below column 0, rows whose column 3 lies below
    column 1, [min of each column], [max of each column]) of one kept 4-column target, as
    (rows, 4)."""
    return (step, int(columns.shape[0]),
            int(np.count_nonzero(columns[:, 2] < columns[:, 0])),
            int(np.count_nonzero(columns[:, 3] < columns[:, 1])),
            [float(v) for v in columns.min(axis=0)], [float(v) for v in columns.max(axis=0)])
