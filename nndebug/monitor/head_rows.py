"""Units of the output layer that never receive a gradient (torch).

A loss that never reads some of the model's output units leaves their rows of the output
layer's weight with a gradient of exactly zero on every step, while the other rows learn. A
question-answering reader whose end logits were its start column read a second time
(``logits[..., 0]`` twice; real-bug batch 131,
``qa_end_logits_copied_from_start_logits``) trained one of its two columns and decoded
spans with an untrained twin of it: NO_GRADIENT looks at whole tensors and saw nothing.

On the first recorded step the model's output is followed back through its autograd graph
across view-like steps (indexing, slicing, reshaping, transposing, splitting) to the
matrix product that made it (past the bias added after it, as a linear layer on a 3-D
input does): that product's weight is the output layer's (``nn.Linear``, or ``F.linear``
with a parameter). On the first ``HEAD_RECORDS`` records, which of its rows
received a non-zero gradient rides along with the step's one transfer;
``run.observed.head_rows`` gets (step, weight's parameter name, rows, [rows with an exactly
zero gradient], how many of the model's outputs come from that layer). Rows of a softmax's
classes always get one (every class's probability is in its cross-entropy), so do a
regression's columns: zero rows mean outputs the loss never reads. That can be meant: a
class-incremental learner's loss reads only the new classes' columns of its one head
(``old_class_weights_shrunk_by_weight_decay``'s fixed twin), so the rule asks for a layer
whose output the model itself splits into several outputs. Convolution heads are not
followed (a detector's anchors may go unmatched).
"""
HEAD_RECORDS = 8      # [design] records read: the rule asks for zero rows on every one of them
MAX_HEADS = 4         # [design] output tensors followed (a model returning a tuple)
MAX_WALK = 16         # [design] graph nodes followed from an output to its matrix product
VIEW_NODES = {"SelectBackward0", "SliceBackward0", "ViewBackward0", "UnsafeViewBackward0",
              "SqueezeBackward0", "SqueezeBackward1", "SqueezeBackward2",
              "UnsqueezeBackward0", "TransposeBackward0", "TransposeBackward1",
              "PermuteBackward0", "ReshapeAliasBackward0", "SplitBackward0",
              "SplitWithSizesBackward0", "UnbindBackward0", "CloneBackward0",
              "AliasBackward0", "AsStridedBackward0", "IndexBackward0"}
PRODUCT_NODES = {"AddmmBackward0", "MmBackward0"}


class HeadRows:
    def __init__(self, adapter, observed, params, names):
        """``params``: the trainable parameters, ``names`` their names (run.params order)."""
        self.adapter, self.observed = adapter, observed
        self.enabled = adapter.framework == "torch"
        self.index = {id(p): i for i, p in enumerate(params)}
        self.names = names
        self.heads = None         # parameter indices of the output layer's weights
        self.records = 0
        self.found = []           # [(parameter index, rows received)] of this record

    def pack(self, packet, output_leaves, delivered):
        """Which rows of the output layer's weight got a gradient this record (device)."""
        self.found = []
        if not self.enabled or self.records >= HEAD_RECORDS:
            return
        if self.heads is None:
            if not output_leaves:
                return
            self.heads = self._find_heads(output_leaves)
        self.records += 1
        for index in self.heads:
            grad = delivered[index] if index < len(delivered) else None
            if grad is None or grad.ndim != 2:
                continue
            packet.add(("head_rows", index), (grad != 0).any(dim=1).float())
            self.found.append(index)

    def take(self, values, record):
        for index in self.found:
            received = values.get(("head_rows", index))
            if received is None:
                continue
            zero = [int(i) for i in (received == 0).nonzero()[0]]
            self.observed.head_rows.append((int(record.step), self.names[index],
                                            int(len(received)), zero, self.heads[index]))
        self.found = []

    def _find_heads(self, leaves):
        """{parameter index of an output layer's weight: how many of the model's outputs
        come from it}."""
        heads = {}
        for leaf in leaves[:MAX_HEADS]:
            index = self._weight_of(getattr(leaf, "grad_fn", None))
            if index is not None:
                heads[index] = heads.get(index, 0) + 1
        return heads

    def _weight_of(self, node):
        """The parameter index of the weight of the matrix product ``node`` comes from
        through view-like steps; None otherwise."""
        for _ in range(MAX_WALK):
            if node is None:
                return None
            name = type(node).__name__
            if name in PRODUCT_NODES:
                return self._product_weight(node)
            inputs = [n for n, _ in node.next_functions if n is not None]
            if name == "AddBackward0":
                # a linear layer on a 3-D input adds its bias after the product
                inputs = [n for n in inputs if type(n).__name__ != "AccumulateGrad"]
            elif name not in VIEW_NODES:
                return None
            if len(inputs) != 1:
                return None
            node = inputs[0]
        return None

    def _product_weight(self, node):
        """x @ W.T: the weight reaches the product through a transpose (``TBackward0``) of
        its AccumulateGrad node."""
        for child, _ in node.next_functions:
            if child is not None and type(child).__name__ == "TBackward0":
                for leaf, _ in child.next_functions:
                    variable = getattr(leaf, "variable", None)
                    if variable is not None and id(variable) in self.index:
                        return self.index[id(variable)]
        return None
