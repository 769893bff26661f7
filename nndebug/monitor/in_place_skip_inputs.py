"""A block whose input is rewritten by an in-place activation inside it and then added back
as the block's skip connection (RESIDUAL_INPUT_MODIFIED_IN_PLACE,
``nndebug.rules.in_place_skips``).

A residual block keeps its input for the skip: ``out = self.body(x); out += x``. When the
body starts with ``nn.ReLU(inplace=True)`` (or the block calls ``out = self.relu(x)`` with
such a ReLU, or ``F.relu_(x)``), the ReLU writes its result into ``x`` itself: ``x`` - and
every name bound to it, ``identity`` included - now holds ``relu(x)``, and the skip adds
the rectified input. Nothing fails; the skip path was meant to carry the input unchanged
(its negative half too), and it never does.

How it is seen (torch): on the first ``IN_PLACE_SKIP_STEPS`` recorded steps, a forward pre-hook
and a forward hook on each module that has sub-modules (a block is one) note, for each
tensor input carrying a gradient, its version counter and its graph node; after the call,
an input whose version moved and whose node is now an activation applied directly onto
its old node was rewritten in place by that activation. Only then is the block's output
graph walked (down to that node, at most ``IN_PLACE_SKIP_WALK_LIMIT`` nodes) for an addition (or a
concatenation) that reads the rewritten tensor directly: the skip. Healthy networks seldom
rewrite a block's input, so the walk seldom runs. No host transfer; no hook after those
steps.

Kept in ``run.observed.in_place_skips`` as ``[(step, block name, block type, activation
node)]``, each block once.
"""
from .loss_reductions import output_tensors

IN_PLACE_SKIP_STEPS = 3          # [design] recorded steps watched (a model's wiring does
                                 # not change)
IN_PLACE_SKIP_ROWS = 8           # [design] blocks noted at most
IN_PLACE_SKIP_WALK_LIMIT = 2000  # [design] nodes of a block's output graph walked at most when
                                 # its input was rewritten (a skip's addition sits near the
                                 # output)
# autograd's nodes of activations torch can apply in place (nn.ReLU(inplace=True),
# F.relu_, LeakyReLU / ELU / Hardtanh / ReLU6 / Threshold / SiLU / ... with inplace=True,
# x.clamp_(min=0) written as a ReLU)
IN_PLACE_ACTIVATIONS = {
    "ReluBackward0", "LeakyReluBackward1", "LeakyReluBackward0", "EluBackward1",
    "EluBackward0", "CeluBackward1", "CeluBackward0", "HardtanhBackward1",
    "HardtanhBackward0", "ThresholdBackward1", "ThresholdBackward0", "SiluBackward0",
    "HardswishBackward0", "HardsigmoidBackward0", "MishBackward0", "SigmoidBackward0",
    "TanhBackward0", "RreluWithNoiseBackward1", "RreluWithNoiseBackward0",
    "ClampBackward1", "ClampMinBackward0"}
# the skip: an addition (out += x, out + x, torch.add) or a concatenation (a dense skip)
SKIP_JOIN_NODES = {"AddBackward0", "AddBackward1", "CatBackward0"}


def _children(node):
    return [child for child, _ in getattr(node, "next_functions", ()) if child is not None]


def adds_directly(roots, node, limit=IN_PLACE_SKIP_WALK_LIMIT):
    """Whether an addition (or concatenation) among the nodes under ``roots`` reads
    ``node`` as one of its operands; the walk does not go below ``node`` (that is before
    the block)."""
    seen, stack, walked = set(roots), list(roots), 0
    while stack and walked < limit:
        current = stack.pop()
        walked += 1
        children = _children(current)
        if type(current).__name__ in SKIP_JOIN_NODES and any(c is node for c in children):
            return True
        for child in children:
            if child is not node and child not in seen:
                seen.add(child)
                stack.append(child)
    return False


class InPlaceSkipInputs:
    def __init__(self, adapter, observed, on_error=lambda error: None):
        self.adapter, self.observed, self.on_error = adapter, observed, on_error
        self.blocks = []
        if adapter.framework == "torch":
            self.blocks = [(name, module) for name, module in adapter.named_modules()
                           if not name or adapter.module_children(module)]
        self.steps = 0
        self._step = None
        self._handles = []
        self._before = {}          # id(block) -> stack of [(input, version, node)]
        self._seen = set()

    def arm(self, step):
        """Hook the blocks for recorded step ``step`` (not after IN_PLACE_SKIP_STEPS steps)."""
        if not self.blocks or self.steps >= IN_PLACE_SKIP_STEPS or step is None:
            return
        self.steps += 1
        self._step = int(step)
        try:
            for name, module in self.blocks:
                self._handles.append(self.adapter.add_forward_pre_hook(module, self._on_input))
                self._handles.append(self.adapter.add_forward_hook(module,
                                                                   self._make_on_output(name)))
        except Exception as error:      # a model without hooks: nothing is read
            self.disarm()
            self.blocks = []
            self.on_error(error)

    def disarm(self):
        for handle in self._handles:
            handle.remove()
        self._handles = []
        self._before = {}

    def _on_input(self, module, inputs):
        try:
            noted = [(x, x._version, x.grad_fn) for x in inputs
                     if self.adapter.is_tensor(x) and x.grad_fn is not None]
            self._before.setdefault(id(module), []).append(noted)
        except Exception as error:      # never break the user's forward
            self.on_error(error)

    def _make_on_output(self, name):
        def on_output(module, inputs, output):
            try:
                stack = self._before.get(id(module))
                noted = stack.pop() if stack else []
                for tensor, version, node in noted:
                    if tensor._version != version:
                        self._check(name, module, tensor, node, output)
            except Exception as error:  # never break the user's forward
                self.on_error(error)
        return on_output

    def _check(self, name, module, tensor, old_node, output):
        new_node = tensor.grad_fn
        if name in self._seen or len(self.observed.in_place_skips) >= IN_PLACE_SKIP_ROWS or \
                new_node is None or new_node is old_node or \
                type(new_node).__name__ not in IN_PLACE_ACTIVATIONS or \
                not any(child is old_node for child in _children(new_node)):
            return             # not an activation applied in place onto the block's input
        roots = [t.grad_fn for t in output_tensors(output) if getattr(t, "grad_fn", None)]
        if roots and adds_directly(roots, new_node):
            self._seen.add(name)
            self.observed.in_place_skips.append(
                (self._step, name, type(module).__name__, type(new_node).__name__))
