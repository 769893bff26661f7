"""The size of the loss's graph on the first recorded steps (``run.observed.graph_nodes``).

A model builds the same graph every step; a graph that grows from step to step reaches
back into earlier batches (a recurrent state never detached: ``adapters/graph_size.py``).
Only the first ``STEPS_MEASURED`` recorded steps are walked: growth shows within them, and
a long run pays nothing after. A loss that requires a gradient but has no graph at all
(``requires_grad`` set on it by hand) is noted in ``run.observed.leaf_losses``.
"""
from ..adapters.graph_size import graph_nodes

STEPS_MEASURED = 12


class GraphGrowth:
    def __init__(self, adapter, observed):
        self.framework, self.observed = adapter.framework, observed

    def on_loss(self, step, loss):
        if step is None or len(self.observed.graph_nodes) >= STEPS_MEASURED:
            return
        nodes = graph_nodes(self.framework, loss)
        if nodes is not None:
            self.observed.graph_nodes.append((int(step), nodes))
        elif getattr(loss, "requires_grad", False):
            # a loss that requires a gradient with no graph behind it: someone set
            # requires_grad on it to silence "does not require grad"; nothing trains
            self.observed.leaf_losses.append(int(step))
