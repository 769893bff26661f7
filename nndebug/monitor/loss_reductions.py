"""How each addend of the loss was reduced over the batch (``run.observed.loss_reductions``).

``loss = F.mse_loss(recon, x) + kl.sum()`` adds a term averaged over the batch to one
summed over it: the summed term weighs each sample as much as the whole averaged term
does, so it outweighs the other by the batch size (and by more when the mean also ran over
pixels), and the balance changes with the batch size. Each term alone is a fine loss; only
their sum is wrong, and nothing in the per-parameter statistics says so.

torch's graph says how each term was reduced, and keeps it after the backward that ran
before ``step(loss)`` (saved tensors are freed then; the sizes and settings a node keeps are
not). On the first ``STEPS_MEASURED`` recorded steps the loss's top-level sum is walked
(additions, subtractions, negation, and multiplication or division by a constant); each
addend whose own node is a full reduction is read:

- ``SumBackward0`` / ``MeanBackward0`` (``x.sum()``, ``x.mean()``), with the reduced
  tensor's shape;
- a loss function's node that keeps its ``reduction`` (``MseLossBackward0``,
  ``NllLossBackward0``, ``BinaryCrossEntropyWithLogitsBackward0``, ...): 'mean' or 'sum'.

An addend counts only when the reduced tensor comes from the watched model's output and
still has the output's leading (batch) axis: a short walk from the reduction down its graph
must meet the grad_fn of an output of the model's forward on that step (noted by a forward
hook on the model, on those steps only) without passing a partial reduction over axis 0
first, and a ``sum``/``mean`` node's tensor must lead with the output's batch size. An L2
penalty summed over the parameters never meets the output: it has no batch axis and is
left out. Each addend lands as ``(operation, "sum"/"mean", scale, batch size)``: the scale
is the product of the signs and ``alpha``s of the additions on the way, None where a
multiplication or division by a constant was passed (its value is a freed saved tensor:
``kl.sum() / len(x)`` reads as a sum of unknown scale). The rule
(``rules/loss_reductions.py``) decides what a mix means.

Cost: a forward hook on the model and a walk of a few dozen graph nodes per addend, on the
first few recorded steps; nothing after.
"""
STEPS_MEASURED = 6           # [design] recorded steps whose loss is read: a loop builds the
                             # same loss on every step, six show it is a habit
ARMED_STEPS_MAX = 24         # [design] recorded steps armed at most: a loop whose loss never
                             # reaches this monitor (no tensor given to step()) stops paying
WALK_LIMIT = 32              # [design] nodes of the top-level sum walked: a dozen weighted
                             # terms is far under it
REACH_LIMIT = 64             # [design] nodes walked from a reduction towards the model's
                             # output: a loss's own operations (a hand-written KL, a
                             # log-softmax, a mask) are a few dozen at most
TERMS_KEPT = 8               # [design] addends kept per step

ADDS = {"AddBackward0", "SubBackward0"}
SCALES = {"MulBackward0", "DivBackward0"}     # by a constant: scale unknown (see below)
FULL_REDUCTIONS = {"SumBackward0": "sum", "MeanBackward0": "mean"}
PARTIAL_REDUCTIONS = {"SumBackward1", "MeanBackward1"}
LOSS_REDUCTIONS = {1: "mean", 2: "sum"}      # torch's Reduction enum (0: 'none')


class LossReductions:
    """Notes, per measured step, how each addend of the loss was reduced over the batch."""

    def __init__(self, adapter, observed, on_error):
        self.adapter, self.observed, self.on_error = adapter, observed, on_error
        self.enabled = adapter.framework == "torch"
        self.armed_steps = 0
        self._outputs = {}           # grad_fn of a model output -> its leading size
        self._handle = None

    def arm(self):
        if not self.enabled or self.armed_steps >= ARMED_STEPS_MAX or \
                len(self.observed.loss_reductions) >= STEPS_MEASURED:
            return
        self.armed_steps += 1
        self._outputs = {}
        try:
            self._handle = self.adapter.add_forward_hook(self.adapter.model, self._on_output)
        except Exception as error:     # a model without forward hooks: nothing is read
            self.enabled = False
            self.on_error(error)

    def disarm(self):
        if self._handle is not None:
            self._handle.remove()
            self._handle = None

    def _on_output(self, module, inputs, output):
        for tensor in output_tensors(output):
            node = getattr(tensor, "grad_fn", None)
            if node is not None and tensor.dim() >= 1:
                self._outputs.setdefault(node, int(tensor.shape[0]))

    def on_loss(self, step, loss):
        outputs, self._outputs = self._outputs, {}
        if step is None or not outputs or getattr(loss, "grad_fn", None) is None:
            return
        try:
            terms = [term for node, scale in top_level_addends(loss.grad_fn)
                     for term in [reduction_over_batch(node, scale, outputs)] if term]
        except Exception as error:     # a graph we cannot read costs this step's reading
            self.on_error(error)
            return
        if terms:
            self.observed.loss_reductions.append((int(step), terms[:TERMS_KEPT]))


def top_level_addends(root):
    """[(node, constant scale or None)]: the addends of the sum at ``root``, through +, -,
    negation and multiplication or division by a constant (a graph-less operand)."""
    found, stack, walked = [], [(root, 1.0)], 0
    while stack and walked < WALK_LIMIT:
        node, scale = stack.pop()
        walked += 1
        name = type(node).__name__
        inputs = [child for child, _ in node.next_functions]
        if name in ADDS and len(inputs) == 2:
            alpha = _number(getattr(node, "_saved_alpha", 1))
            for index, child in enumerate(inputs):
                if child is None:
                    continue                   # a constant addend: LOSS_TERM_WITHOUT_GRADIENT's
                factor = 1.0 if index == 0 else (alpha if alpha is not None else None)
                if name == "SubBackward0" and index == 1 and factor is not None:
                    factor = -factor
                stack.append((child, _times(scale, factor)))
        elif name == "NegBackward0" and inputs and inputs[0] is not None:
            stack.append((inputs[0], _times(scale, -1.0)))
        elif name in SCALES and len(inputs) == 2 and (inputs[0] is None) != (inputs[1] is None):
            graph = 0 if inputs[0] is not None else 1
            if name == "DivBackward0" and graph != 0:
                continue                       # constant / graph: no reduction of ours
            # the constant itself is a saved tensor, freed by the backward that ran before
            # step(loss): the scale becomes unknown
            stack.append((inputs[graph], None))
        else:
            found.append((node, scale))
    return found


def reduction_over_batch(node, scale, outputs):
    """``(operation, "sum"/"mean", scale, batch size)`` when ``node`` fully reduces a tensor
    that carries the batch axis of one of the model's ``outputs`` (grad_fn -> leading size);
    None otherwise."""
    name = type(node).__name__
    if name in FULL_REDUCTIONS:
        reduction, shape = FULL_REDUCTIONS[name], tuple(node._saved_self_sym_sizes)
    elif hasattr(node, "_saved_reduction"):
        # the loss's input tensor is freed with the backward; its path to the output says
        # whether the batch axis is still there
        reduction, shape = LOSS_REDUCTIONS.get(int(node._saved_reduction)), None
    else:
        return None
    start = node.next_functions[0][0] if node.next_functions else None
    batch = _batch_reached(start, outputs)
    if reduction is None or batch is None or (shape is not None and
                                                  (not shape or int(shape[0]) != batch)):
        return None
    return (name, reduction, scale, batch)


def _batch_reached(start, outputs):
    """The leading size of the model output met walking down from ``start``; None when none
    is met within REACH_LIMIT nodes, or a partial reduction over axis 0 comes first."""
    seen, queue = set(), [start]
    while queue and len(seen) < REACH_LIMIT:
        node = queue.pop(0)
        if node is None or node in seen:
            continue
        seen.add(node)
        if node in outputs:
            return outputs[node]
        if type(node).__name__ in PARTIAL_REDUCTIONS and _reduces_axis_0(node):
            return None                    # the batch axis was summed away before
        queue.extend(child for child, _ in node.next_functions)
    return None


def _reduces_axis_0(node):
    dims = getattr(node, "_saved_dim", None)
    rank = len(getattr(node, "_saved_self_sym_sizes", ()))
    if dims is None:
        return True                        # unknown: say it did (stay silent)
    dims = [dims] if isinstance(dims, int) else list(dims)
    return any(int(d) % max(rank, 1) == 0 for d in dims)


def output_tensors(output):
    """The tensors of a forward's output: itself, or those in a tuple, list or dict
    (``self_additions.py`` and ``recomputed_segments.py`` read them too)."""
    if hasattr(output, "grad_fn"):
        return [output]
    if isinstance(output, dict):
        output = list(output.values())
    if isinstance(output, (tuple, list)):
        return [item for item in output if hasattr(item, "grad_fn")]
    return []


def _number(value):
    """A Python float from a number or a one-value tensor; None otherwise."""
    try:
        if hasattr(value, "numel") and value.numel() != 1:
            return None
        return float(value)
    except (TypeError, ValueError, RuntimeError):
        return None


def _times(scale, factor):
    return None if scale is None or factor is None else scale * factor
