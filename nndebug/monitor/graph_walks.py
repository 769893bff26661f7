"""The shared walks of autograd's graphs (torch): one walk of the model's forward graph
and one of the loss's graph per recorded step, each handed to every observer that reads it.

Some bugs are written into the model's forward itself, and autograd's graph shows them
right after the forward, while each node still holds what it saved for the backward:
``x + x`` meant as a residual (``self_additions.py``), ``x + (q - x)`` meant as a
straight-through estimator (``straight_through_cancellations.py``), a graph's adjacency
multiplied in unnormalised (``propagation_matrices.py``), a reversed recurrent output
concatenated unflipped (``reversed_steps.py``). Others are written into the loss: a batch
of embeddings divided by the norm of the whole batch (``whole_batch_norms.py``), a sigmoid
of a whole batch's sum (``squashed_batch_sums.py``), an ``(N, 1)`` output minus ``(N,)``
targets (``outer_differences.py``). Each reads the same nodes, so

- ``ForwardGraph`` puts ONE forward hook on the model and walks the graph under the first
  forward's outputs once (the loss above them is not walked: ``loss + loss`` is no model's
  layer);
- ``LossGraph`` walks the graph under the step's loss once, when the recorded step ends
  (the nodes' shapes outlive the backward; their saved tensors do not);

and each hands the list of nodes (``nodes_under``) to every reader that still wants one. A
reader has two methods:

- ``wants(step)``: whether it still reads (each reads the first few recorded steps only:
  the model's structure and the loss's are the same on every step);
- ``read(step, nodes)``: look at the nodes; an exception stops that reader only.

Cost: a walk of each graph on each of the first few recorded steps; nothing once no reader
wants one.
"""
from .loss_reductions import output_tensors

WALK_LIMIT = 50_000          # [design] forward-graph nodes walked at most per step: a 100-layer
                             # transformer's forward is a few thousand; above, the walk stops
                             # (what the readers found in the nodes walked stands)
LOSS_WALK_LIMIT = 4096       # [design] loss-graph nodes walked at most per step (a 12-layer
                             # transformer's loss graph is ~1,500 nodes)


def nodes_under(roots, limit=WALK_LIMIT):
    """The backward nodes under ``roots`` (each once, the roots included), at most
    ``limit`` of them, in no special order."""
    roots = [root for root in roots if root is not None]
    seen, stack, nodes = set(roots), list(roots), []
    while stack and len(nodes) < limit:
        node = stack.pop()
        nodes.append(node)
        for child, _ in getattr(node, "next_functions", ()):
            if child is not None and child not in seen:
                seen.add(child)
                stack.append(child)
    return nodes


class ForwardGraph:
    def __init__(self, adapter, readers, on_error):
        self.adapter, self.readers, self.on_error = adapter, list(readers), on_error
        self.enabled = adapter.framework == "torch"
        self._handle, self._step, self._wanting = None, None, []

    def arm(self, step):
        """The coming step is recorded: hook the model if a reader still wants its graph."""
        if not self.enabled:
            return
        self._wanting = [reader for reader in self.readers if reader.wants(step)]
        if not self._wanting:
            return
        self._step = step
        try:
            self._handle = self.adapter.add_forward_hook(self.adapter.model, self._on_output)
        except Exception as error:      # a model without forward hooks: nothing is read
            self.enabled = False
            self.on_error(error)

    def disarm(self):
        if self._handle is not None:
            self._handle.remove()
            self._handle = None
        self._wanting = []

    def _on_output(self, module, inputs, output):
        wanting, self._wanting = self._wanting, []     # the first forward of the step only
        if not wanting:
            return
        try:
            roots = [t.grad_fn for t in output_tensors(output) if getattr(t, "grad_fn", None)]
            nodes = nodes_under(roots) if roots else None
        except Exception as error:                     # never break the user's forward
            self.enabled = False
            self.on_error(error)
            return
        if nodes is not None:                          # None: an output without a graph
            for reader in wanting:                     # what the model was called with, for
                note = getattr(reader, "note_inputs", None)   # the readers that ask
                if note is not None:
                    note(inputs)
            self.readers = hand_over(self.readers, wanting, int(self._step), nodes,
                                     self.on_error)


class LossGraph:
    def __init__(self, adapter, readers, on_error):
        self.readers, self.on_error = list(readers), on_error
        self.enabled = adapter.framework == "torch"

    def on_loss(self, step, loss):
        """A recorded step ended with ``loss``: walk its graph if a reader still wants it."""
        root = getattr(loss, "grad_fn", None)
        if not self.enabled or step is None or root is None:
            return
        wanting = [reader for reader in self.readers if reader.wants(step)]
        if wanting:
            self.readers = hand_over(self.readers, wanting, int(step),
                                     nodes_under([root], LOSS_WALK_LIMIT), self.on_error)


class FirstStepsReader:
    """A reader that reads the first ``steps`` graphs it is handed, then wants no more (the
    model's and the loss's structure are the same on every step of an ordinary loop). A
    subclass sets ``steps`` and writes ``keep(step, nodes)``."""
    steps = 3

    def __init__(self, observed):
        self.observed, self.walks = observed, 0

    def wants(self, step):
        return self.walks < self.steps

    def read(self, step, nodes):
        self.walks += 1
        self.keep(step, nodes)


def hand_over(readers, wanting, step, nodes, on_error):
    """Give ``nodes`` to each reader in ``wanting``; the readers left (one that raised is
    dropped: a measurement never breaks the user's step, nor the other readers)."""
    failed = []
    for reader in wanting:
        try:
            reader.read(step, nodes)
        except Exception as error:
            failed.append(reader)
            on_error(error)
    return [reader for reader in readers if reader not in failed]


UNSIGNED_WRAP = 2 ** 64      # autograd nodes save a negative dim as an unsigned 64-bit number


def saved_axis(dim, ndim):
    """The axis, counted from 0, that an autograd node's saved ``dim`` names for a tensor of
    ``ndim`` axes: nodes save a negative dim as an unsigned 64-bit number (-1 as 2**64 - 1),
    which indexes nothing as it is."""
    dim = int(dim)
    if dim >= UNSIGNED_WRAP // 2:
        dim -= UNSIGNED_WRAP
    return dim % max(1, ndim)


def constant_operand(node):
    """The saved operand of a product node (``MulBackward0``) that takes no gradient - a
    mask, a one-hot table, a constant weight -, or None when both operands are computed
    or the saved tensor is gone (read before the backward frees it)."""
    import torch
    parents = getattr(node, "next_functions", ())
    if type(node).__name__ != "MulBackward0" or len(parents) != 2:
        return None
    for (parent, _), name in zip(parents, ("_saved_self", "_saved_other")):
        if parent is None:
            try:
                value = getattr(node, name)
            except (AttributeError, RuntimeError):
                return None
            return value if isinstance(value, torch.Tensor) else None
    return None
