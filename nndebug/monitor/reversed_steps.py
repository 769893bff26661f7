"""Recurrent outputs in opposite time orders concatenated step by step
(``run.observed.reversed_concatenations``; REVERSED_STEPS_NOT_REALIGNED,
``nndebug.rules.reversed_steps``).

A hand-built bidirectional layer runs a second RNN on the sequence reversed
(``rnn_bw(x.flip(1))``); its output comes out in reversed time order too, so it must be
flipped back before it sits beside the forward RNN's output. Without that flip
(ContextScout/gcn_ner#10), position t holds the forward state of step t beside the backward
state of step T-1-t: nothing fails, the shapes agree, and whatever needs the right-hand
context of a step gets another step's.

On the first ``STEPS_MEASURED`` recorded steps (torch only), a forward hook on each recurrent
module (``nn.RNNBase``: RNN, LSTM, GRU) notes its output's graph node and whether its input
came straight from a flip along the time axis; the shared walk of the forward's graph
(``graph_walks.py``) then hands over the nodes under the model's outputs; from each
concatenation among them, each input is followed down through shape-keeping steps (views,
transposes, activations, dropout, flips) to a recurrent output. Each branch's time order is
its flips counted (the input's and those on the way), mod 2; a concatenation whose branches
reach recurrent outputs in different orders is kept. A branch through anything else (a
slice or an index: ``out[:, -1]``, a pooling) is a summary, not a sequence, and is not
followed. Cost: a hook call per recurrent layer and the search from each concatenation, on a few
steps; nothing on the others. Not seen: a flip of data
that carries no graph (``rnn(x.flip(1))`` on raw inputs, or ids flipped before their
embedding).
"""
STEPS_MEASURED = 3           # [design] recorded steps read: the model's structure is the same on
                             # every step; three show it is not one odd batch
BRANCH_DEPTH = 12            # [design] shape-keeping steps followed from a concatenation down to
                             # a recurrent output: a transpose, a view, a dropout, a flip, an
                             # activation are a handful
FLIP = "FlipBackward0"
CONCATENATION = "CatBackward0"
# [design] torch's graph nodes that keep every position of a sequence where it was (or, for
# a flip, reverse the order only): a branch through them still carries the whole sequence
SHAPE_KEEPING = {"TransposeBackward0", "TransposeBackward1", "PermuteBackward0",
                 "ViewBackward0", "UnsafeViewBackward0", "ReshapeAliasBackward0",
                 "CloneBackward0", "ToCopyBackward0", FLIP, "TanhBackward0", "ReluBackward0",
                 "SigmoidBackward0", "GeluBackward0", "EluBackward0", "LeakyReluBackward0",
                 "NativeDropoutBackward0"}


class ReversedSteps:
    def __init__(self, adapter, observed, on_error):
        self.adapter, self.observed, self.on_error = adapter, observed, on_error
        self.enabled = adapter.framework == "torch"
        self._handles, self._walked = [], 0
        self._outputs = {}          # graph node of a recurrent output -> (layer, time axis,
                                    # input flipped along time)
        self._recurrent = None      # [(name, module)], found once

    def arm(self, step):
        if not self.enabled or self._walked >= STEPS_MEASURED:
            return
        try:
            if self._recurrent is None:
                self._recurrent = recurrent_modules(self.adapter.model)
            if not self._recurrent:
                self.enabled = False        # nothing recurrent: nothing to read, ever
                return
            self._outputs = {}
            self._handles = [self.adapter.add_forward_hook(module, self._recurrent_hook(name))
                             for name, module in self._recurrent]
        except Exception as error:          # a model without forward hooks: nothing is read
            self.enabled = False
            self.disarm()
            self.on_error(error)

    def disarm(self):
        for handle in self._handles:
            handle.remove()
        self._handles = []

    def _recurrent_hook(self, name):
        def on_output(module, inputs, output):
            try:
                out = output[0] if isinstance(output, tuple) else output
                node = getattr(out, "grad_fn", None)
                if node is None or not inputs:
                    return                      # a PackedSequence, or no graph
                time_axis = 1 if getattr(module, "batch_first", False) else 0
                self._outputs[node] = (name, time_axis,
                                       flips_time(getattr(inputs[0], "grad_fn", None),
                                                  time_axis))
            except Exception as error:          # never break the user's forward
                self.on_error(error)
        return on_output

    def wants(self, step):
        """A reader of ``graph_walks.ForwardGraph``: armed, with recurrent layers."""
        return bool(self._handles) and self._walked < STEPS_MEASURED

    def read(self, step, nodes):
        outputs, self._outputs = self._outputs, {}
        if not outputs:
            return                             # no recurrent output with a graph this step
        self._walked += 1
        for reversed_layer, other_layer in misaligned_concatenations(nodes, outputs):
            self.observed.reversed_concatenations.append((step, reversed_layer, other_layer))


def recurrent_modules(model):
    """[(name, module)] of the model's torch recurrent layers (nn.RNN, nn.LSTM, nn.GRU)."""
    import torch
    return [(name, module) for name, module in model.named_modules()
            if isinstance(module, torch.nn.RNNBase)]


def flips_time(node, time_axis):
    """Whether ``node`` is a flip whose dimensions include ``time_axis``."""
    if node is None or type(node).__name__ != FLIP:
        return False
    dims = getattr(node, "_saved_dims", ())
    return time_axis in tuple(dims)


def branch_orders(start, outputs):
    """{(layer, time order)} of the recurrent outputs reached from ``start`` through
    shape-keeping nodes only; time order = flips of the time axis on the way plus the flip of
    the layer's own input, mod 2."""
    found, stack, seen = set(), [(start, 0, 0)], set()
    while stack:
        node, flips, depth = stack.pop()
        if node is None or (node, flips) in seen or depth > BRANCH_DEPTH:
            continue
        seen.add((node, flips))
        if node in outputs:
            layer, time_axis, input_flipped = outputs[node]
            found.add((layer, (flips + input_flipped) % 2))
            continue
        kind = type(node).__name__
        if kind not in SHAPE_KEEPING:
            continue
        # a flip on the way counts when it reverses a 3-D sequence's time or batch axis
        # (which of the two is time depends on batch_first, read at the recurrent output)
        turned = kind == FLIP and any(d in (0, 1) for d in getattr(node, "_saved_dims", ()))
        for child, _ in node.next_functions:
            stack.append((child, flips + turned, depth + 1))
    return found


def misaligned_concatenations(nodes, outputs):
    """[(reversed-order layer, other layer)] for each concatenation among ``nodes`` whose
    inputs reach recurrent outputs in opposite time orders."""
    found = []
    for node in nodes:
        if type(node).__name__ != CONCATENATION:
            continue
        reached = set()
        for child, _ in node.next_functions:
            reached |= branch_orders(child, outputs)
        flipped = sorted(layer for layer, order in reached if order == 1)
        kept = sorted(layer for layer, order in reached if order == 0)
        if flipped and kept:
            found.append((flipped[0], kept[0]))
    return found
