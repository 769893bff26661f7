"""A Linear layer that reads another Linear layer's output as it came out, with nothing
between them (LINEAR_LAYERS_STACKED, ``nndebug.rules.stacked_linears``).

Two affine maps in a row are one affine map: ``fc2(fc1(x))`` has two layers' parameters and the
capacity of a single layer. A head or an MLP written without its activation (``return
self.fc2(self.fc1(x))``) trains, and trains like the linear model it is.

On the first ``STEPS_KEPT`` recorded steps, a forward hook on each Linear layer (torch's
``nn.Linear`` and layers named so) keeps a reference to the tensor it gave out, with the
tensor's version counter; a Linear whose input is one of those tensors, unchanged since
(an in-place activation, ``ReLU(inplace=True)``, bumps the version), read it directly. Each
such pair is noted once with the widths the rule needs: fc1's inputs, the width between the
two, fc2's outputs, and whether fc1 trains. A model with fewer than two Linear layers gets no
hook. The references live for one forward pass (dropped when the step's hooks go); nothing
is reduced or copied.

A pair whose first layer's output is also read by something else - the skip of a residual
block (``h = stem(x); h + block(h)`` where the block opens with a Linear), the keys and values
beside the queries of an attention written by hand - is no collapse: the first layer's
output is needed as it is, and composing the pair would not save its width. Where torch's
graph of the forward is walked (``graph_walks.ForwardGraph``, on the first recorded steps),
the pairs a step found wait for it and a pair whose first output has more than one
consumer in that graph is dropped; a pair never checked (minigrad, a forward the walk did
not see) is kept as found.

Kept in ``run.observed.stacked_linears`` as ``[(step, first layer, second layer, first's
in_features, width between, second's out_features, first trains)]``.
"""

STEPS_KEPT = 2        # [design] recorded steps watched (a model's wiring does not change)
PAIRS_KEPT = 32       # [design] pairs noted at most


def linear_layers(adapter):
    """[(name, module)] of the Linear layers (``in_features``/``out_features`` known)."""
    return [(name, module) for name, module in adapter.named_modules()
            if adapter.module_type(module) == "Linear"
            and hasattr(module, "in_features") and hasattr(module, "out_features")]


def _version(tensor):
    return getattr(tensor, "_version", None)


def _trains(module):
    weight = getattr(module, "weight", None)
    return bool(getattr(weight, "requires_grad", True))


def consumer_counts(nodes, wanted):
    """{id(node): how many edges of the graph ``nodes`` lead into it} for the ids in
    ``wanted``: how many operations read that tensor."""
    counts = dict.fromkeys(wanted, 0)
    for node in nodes:
        for child, _ in getattr(node, "next_functions", ()):
            if child is not None and id(child) in counts:
                counts[id(child)] += 1
    return counts


class StackedLinears:
    def __init__(self, adapter, observed, on_error=lambda error: None):
        self.adapter, self.observed, self.on_error = adapter, observed, on_error
        layers = linear_layers(adapter)
        self.layers = layers if len(layers) >= 2 else []
        self.steps = 0
        self.graph_reads = 0
        self._handles = []
        self._outputs = {}        # id(output) -> (output, its version, layer name, module)
        self._seen = set()        # (first, second) pairs noted
        self._pending = []        # [(row, first's output node)] waiting for the forward graph

    # --- read by graph_walks.ForwardGraph (one walk of the forward's graph, shared) ---
    def wants(self, step):
        return bool(self.layers) and self.graph_reads < STEPS_KEPT

    def read(self, step, nodes):
        """The forward's graph: keep the pairs whose first output only the second reads."""
        self.graph_reads += 1
        pending, self._pending = self._pending, []
        counts = consumer_counts(nodes, {id(node) for _, node in pending if node is not None})
        for row, node in pending:
            if node is None or counts.get(id(node), 0) <= 1:
                self._keep(row)

    def arm(self, step):
        """Hook the Linear layers for recorded step ``step`` (not after STEPS_KEPT steps)."""
        if not self.layers or self.steps >= STEPS_KEPT:
            return
        self.steps += 1
        self._handles = [self.adapter.add_forward_hook(module, self._make_hook(name, step))
                         for name, module in self.layers]

    def disarm(self):
        for handle in self._handles:
            handle.remove()
        self._handles = []
        self._outputs = {}
        pending, self._pending = self._pending, []
        for row, _ in pending:          # no graph walked after them: kept as found
            self._keep(row)

    def _make_hook(self, name, step):
        def on_output(module, inputs, output):
            try:
                given = inputs[0] if inputs else None
                made = self._outputs.get(id(given))
                if made is not None and made[0] is given and _version(given) == made[1]:
                    self._note(step, made[2], made[3], name, module,
                               getattr(given, "grad_fn", None))
                if self.adapter.is_tensor(output):
                    self._outputs[id(output)] = (output, _version(output), name, module)
            except Exception as error:        # never break the user's forward pass
                self.on_error(error)
        return on_output

    def _note(self, step, first_name, first, second_name, second, first_output_node):
        if (first_name, second_name) in self._seen or len(self._seen) >= PAIRS_KEPT:
            return
        self._seen.add((first_name, second_name))
        row = (step, first_name, second_name, int(first.in_features),
               int(first.out_features), int(second.out_features), _trains(first))
        self._pending.append((row, first_output_node))

    def _keep(self, row):
        self.observed.stacked_linears.append(row)
