"""The size of the loss's graph on the first recorded steps (``run.observed.graph_nodes``).

A model builds the same graph every step; a graph that grows from step to step reaches
back into earlier batches (a recurrent state never detached: ``adapters/graph_size.py``).
Only the first ``STEPS_MEASURED`` recorded steps are walked: growth shows within them, and
a long run pays nothing after. The same walk notes the operations whose backward is written
in Python (``python_backwards``: the loss-scale probe has nothing to test without one). A loss that requires a gradient but has no graph at all
(``requires_grad`` set on it by hand) is noted in ``run.observed.leaf_losses``.

On the same steps the top of the graph is read for addends of the loss that carry no
gradient (``loss_terms.py``): each one with a known value lands in
``run.observed.loss_terms``. torch's graph shows such a term but not its value; a step that
showed one arms the constants mode (``arm``/``disarm``, called with the step's other hooks)
for the next ``VALUE_STEPS`` recorded steps.
"""
from ..adapters.graph_size import walk_graph
from ..observed import LossTerm
from .function_modes import OwnedModes
from .loss_terms import (TERMS_PER_STEP, VALUE_STEPS, TensorOrigins, constant_addends,
                         constants_mode)

STEPS_MEASURED = 12


class GraphGrowth:
    def __init__(self, adapter, observed):
        self.framework, self.observed = adapter.framework, observed
        self.values_wanted = False    # a torch step showed a constant addend (value unknown)
        self.value_steps = 0          # recorded steps measured under the constants mode
        self._notes = None            # node -> constant, written by the mode this step
        self._computed = None         # id -> one-value tensor the mode saw made by a reduction
        self._origins = None          # where the step's tensors came from (TensorOrigins)
        self.modes = OwnedModes()     # the constants mode, and retired ones (function_modes.py)
        self.python_backwards = {}    # step -> names of the graph's Python-written backwards
                                      # (None: not known); read by the loss-scale probe

    def arm(self):
        """The coming step is recorded: the constants mode goes on if a value is wanted."""
        self._drop_stale()
        if not self.values_wanted or self.value_steps >= VALUE_STEPS or self.modes.stale or \
                len(self.observed.graph_nodes) >= STEPS_MEASURED:
            return
        try:
            self._notes, self._computed, self._origins = {}, {}, TensorOrigins()
            self.modes.push(constants_mode(self._notes, self._computed, self._origins))
        except Exception:              # no mode, no values: never break the user's step
            self.modes.current, self._notes, self.values_wanted = None, None, False

    def disarm(self):
        """Mode off. One under a mode pushed later stays (popping would remove theirs),
        notes nothing, and is popped as soon as it is on top again."""
        try:
            self.modes.retire()
        except Exception:
            self.values_wanted = False

    def _drop_stale(self):
        try:
            self.modes.drop_stale()
        except Exception:
            self.values_wanted = False

    def on_loss(self, step, loss):
        if step is None or len(self.observed.graph_nodes) >= STEPS_MEASURED:
            return
        notes, self._notes = self._notes, None
        computed, self._computed = self._computed or {}, None
        origins, self._origins = self._origins, None
        nodes, python_backwards = walk_graph(self.framework, loss)
        if nodes is not None:
            self.python_backwards[int(step)] = python_backwards
            self.observed.graph_nodes.append((int(step), nodes))
            self._read_terms(int(step), loss, notes, computed, origins)
        elif getattr(loss, "requires_grad", False):
            # a loss that requires a gradient with no graph behind it: someone set
            # requires_grad on it to silence "does not require grad"; nothing trains
            self.observed.leaf_losses.append(int(step))

    def _read_terms(self, step, loss, notes, computed=None, origins=None):
        """The loss's addends without a gradient: kept when their value is known, else
        (torch, no notes this step) the mode is asked for on the next recorded steps.
        ``computed``: id -> tensor of the one-value tensors the mode saw made by a
        reduction (``LossTerm.computed``); ``origins``: where the mode saw tensors come
        from (``LossTerm.data_only``)."""
        terms = constant_addends(self.framework, loss, notes)
        if not terms:
            return
        if notes is not None:
            self.value_steps += 1
        total = abs(_one_value(loss) or 0.0)
        kept = []
        for name, factor, constant, cut in terms:
            made = computed is not None and computed.get(id(constant)) is constant
            data_only = origins is not None and constant is not None and \
                origins.data_only(constant)
            constant = None if constant is None else _one_value(constant)
            if factor is None or constant is None:
                self.values_wanted = self.framework == "torch"
                continue
            value = factor * constant
            kept.append(LossTerm(step=step, value=value, made_by=name, computed=made,
                                 share=abs(value) / total if total > 0 else None,
                                 data_only=data_only, cut_by=cut))
        kept.sort(key=lambda t: -abs(t.value))
        self.observed.loss_terms.extend(kept[:TERMS_PER_STEP])


def _one_value(tensor):
    """The single number a one-value tensor, array or Python number holds; None for more."""
    if hasattr(tensor, "_node"):              # a minigrad tensor: its array
        tensor = tensor.data
    elif getattr(tensor, "requires_grad", False):   # torch warns on float() of one
        tensor = tensor.detach()
    try:
        return float(tensor)
    except (TypeError, ValueError, RuntimeError):
        return None
