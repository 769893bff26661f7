"""One walk of the model's forward graph per recorded step, shared by the observers that
read the model's structure from it (torch).

Some bugs are written into the model's forward itself, and autograd's graph shows them
right after the forward, while each node still holds what it saved for the backward:
``x + x`` meant as a residual (``self_additions.py``), ``x + (q - x)`` meant as a
straight-through estimator (``straight_through_cancellations.py``), a graph's adjacency
multiplied in unnormalised (``propagation_matrices.py``), a reversed recurrent output
concatenated unflipped (``reversed_steps.py``). Each of them reads the same nodes, so
``ForwardGraph`` puts ONE forward hook on the model, walks the graph under the first
forward's outputs ONCE (``nodes_under``), and hands the list of nodes to each reader that
still wants one. A reader has two methods:

- ``wants(step)``: whether it still reads (each reads the first few recorded steps only:
  the model's structure is the same on every step);
- ``read(step, nodes)``: look at the nodes; an exception stops that reader only.

The loss's graph above the outputs is not walked: ``loss + loss`` is no model's layer.
Cost: one hook call and one walk on each of the first few recorded steps; nothing once no
reader wants one.
"""
from .loss_reductions import output_tensors

WALK_LIMIT = 50_000          # [design] graph nodes walked at most per step: a 100-layer
                             # transformer's forward is a few thousand; above, the walk stops
                             # (what the readers found in the nodes walked stands)


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
        if nodes is None:
            return                                     # an output without a graph
        for reader in wanting:
            try:
                reader.read(int(self._step), nodes)
            except Exception as error:                 # that reader stops, the others go on
                self.readers = [r for r in self.readers if r is not reader]
                self.on_error(error)
