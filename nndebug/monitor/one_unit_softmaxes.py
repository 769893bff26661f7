"""A softmax (or log-softmax) taken over an axis that holds ONE number
(``run.observed.one_unit_softmaxes``; SOFTMAX_OVER_ONE_UNIT, ``nndebug.rules.
one_unit_softmax``).

A softmax divides each exp(z) by the sum of the exps along its axis. Along an axis of
size one that sum is exp(z) itself: the output is exactly 1 (its log exactly 0) whatever
z is, and its gradient is exactly 0. The reports are many and the shape is one:

- a binary classifier ending in ``Linear(.., 1)`` and a softmax: every input "positive";
- a one-channel segmentation head under ``CrossEntropyLoss`` (a log-softmax over the
  channel axis): the loss is 0 on every step, nothing learns;
- attention scores shaped (B, T, 1) with ``softmax(dim=-1)``: every weight is 1, the
  "attention" is a plain sum and its score layer never learns.

In torch's graph each is a ``SoftmaxBackward0`` / ``LogSoftmaxBackward0`` node whose
saved axis (``_saved_dim``) has size one in its output's shape (the node's input
metadata), on a tensor of more than one number. Both outlive the backward, so the nodes
come from the shared walks: the loss's graph (``graph_walks.LossGraph``: a cross-entropy's
own log-softmax, and the model's layers under it) and the model's forward graph
(``graph_walks.ForwardGraph``, for a loop that hands no loss to the monitor), on the first
``WALK_STEPS`` recorded steps only: no per-step cost after them, no host transfer.
"""
from .graph_walks import FirstStepsReader, saved_axis

WALK_STEPS = 3            # [design] recorded steps read: the graph has the same shape on
                          # every step of an ordinary loop
SOFTMAXES = {"SoftmaxBackward0": "softmax", "LogSoftmaxBackward0": "log_softmax"}
MAX_ROWS = 8              # [design] distinct (function, shape, axis) kept per run


class OneUnitSoftmaxes(FirstStepsReader):
    """A reader of ``graph_walks.LossGraph`` or ``graph_walks.ForwardGraph`` (one of each is
    armed; they share the observed list and keep each softmax once)."""
    steps = WALK_STEPS

    def keep(self, step, nodes):
        rows = self.observed.one_unit_softmaxes
        seen = {(row[1], tuple(row[2]), row[3]) for row in rows}
        for function, shape, axis in find_one_unit_softmaxes(nodes):
            if (function, tuple(shape), axis) not in seen and len(rows) < MAX_ROWS:
                seen.add((function, tuple(shape), axis))
                rows.append((step, function, shape, axis))


def find_one_unit_softmaxes(nodes):
    """[(function name, output shape, axis)] of each softmax among ``nodes`` taken over an
    axis of size one of a tensor holding more than one number."""
    found = []
    for node in nodes:
        function = SOFTMAXES.get(type(node).__name__)
        if function is None:
            continue        # asked first: a node's metadata costs an object to read
        metadata = getattr(node, "_input_metadata", ())
        dim = getattr(node, "_saved_dim", None)
        if not metadata or dim is None:
            continue
        shape = [int(n) for n in metadata[0].shape]
        if not shape:
            continue
        axis = saved_axis(dim, len(shape))
        numbers = 1
        for n in shape:
            numbers *= n
        if shape[axis] == 1 and numbers > 1:
            found.append((function, shape, axis))
    return found
