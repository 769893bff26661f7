"""Additions inside the model's forward whose two operands are one tensor
(``run.observed.self_additions``).

``x, _ = attn(h, h, h); x = x + x`` (kyegomez/BitNet#32) was meant as a residual
connection, ``x = attn_out + x``: the attention output overwrote the name of the block's
input, so the "residual" adds the attention output to itself. The block's input is lost
(each position's own embedding reaches the head through attention only) and the stream is
doubled at every block; the loss still falls, only more slowly.

In torch's graph such a sum is an ``AddBackward0`` whose two inputs are the same node and
output: nothing else makes one (``y + x`` has two, ``2 * x`` is a multiplication). On the
first ``STEPS_MEASURED`` recorded steps a forward hook on the model walks the graph under
its outputs, right after the forward, and counts those additions whose operand is an
activation (one on a parameter, ``w + w``, is a choice of initial scale, not a lost input).
The loss's own graph above the outputs is not walked: ``loss + loss`` is no model's layer.
Cost: one walk of the forward's graph on each of the first few recorded steps.
"""
from .loss_reductions import output_tensors

STEPS_MEASURED = 3           # [design] recorded steps walked: the model's structure is the same
                             # on every step, three show it is not one odd batch
WALK_LIMIT = 50_000          # [design] graph nodes walked at most per step: a 100-layer
                             # transformer's forward is a few thousand; above, the walk stops
                             # (what it found so far stands)


class SelfAdditions:
    def __init__(self, adapter, observed, on_error):
        self.adapter, self.observed, self.on_error = adapter, observed, on_error
        self.enabled = adapter.framework == "torch"
        self._handle = None
        self._step, self._walked_this_step = None, False

    def arm(self, step):
        if not self.enabled or len(self.observed.self_additions) >= STEPS_MEASURED:
            return
        self._step, self._walked_this_step = step, False
        try:
            self._handle = self.adapter.add_forward_hook(self.adapter.model, self._on_output)
        except Exception as error:      # a model without forward hooks: nothing is read
            self.enabled = False
            self.on_error(error)

    def disarm(self):
        if self._handle is not None:
            self._handle.remove()
            self._handle = None

    def _on_output(self, module, inputs, output):
        if self._walked_this_step or self._step is None:
            return
        self._walked_this_step = True          # the first forward of the step is read
        try:
            roots = [t.grad_fn for t in output_tensors(output) if getattr(t, "grad_fn", None)]
            if roots:
                self.observed.self_additions.append((int(self._step),
                                                     count_self_additions(roots)))
        except Exception as error:             # never break the user's forward
            self.enabled = False
            self.on_error(error)


def count_self_additions(roots):
    """The ``AddBackward0`` nodes under ``roots`` whose two inputs are one activation."""
    seen, stack, found = set(roots), list(roots), 0
    while stack and len(seen) < WALK_LIMIT:
        node = stack.pop()
        inputs = node.next_functions
        if type(node).__name__ == "AddBackward0" and len(inputs) == 2 and \
                inputs[0][0] is not None and inputs[0] == inputs[1] and \
                type(inputs[0][0]).__name__ != "AccumulateGrad":
            found += 1
        for child, _ in inputs:
            if child is not None and child not in seen:
                seen.add(child)
                stack.append(child)
    return found

