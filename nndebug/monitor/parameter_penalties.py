"""Hand-written L2 penalties on the watched parameters, next to the optimizer's own
weight_decay over the same tensors (``run.observed.parameter_penalties``, read by
``nndebug.rules.parameter_penalties``).

``loss = data_loss + l2 * sum((w ** 2).sum() for w in model.parameters())`` is L2
regularisation written by hand; ``torch.optim.Adam(..., weight_decay=l2)`` is the same
regularisation done by the optimizer (it adds ``l2 * w`` to each gradient; AdamW shrinks the
weights apart from it). Both at once pull the weights towards zero twice
(rutgerswiselab/NCR#2: "you perform L2 regularization two times at every optimizer step"),
and nothing in the loss curve says which of the two was meant.

On the first ``STEPS_MEASURED`` recorded steps the loss's graph is walked from its root
through the nodes that only combine addends (``+``, ``-``, scaling by a constant, sums and
means, a square root or a power of a norm): the model's own output is reached only through
a loss function's node (cross-entropy, MSE, ...) or a layer's, where the walk stops. A node
met on that walk that squares a parameter directly (``w ** 2``, ``w * w``, ``w.norm()``,
``torch.square(w)``) is a penalty on that parameter: a norm taken inside the forward (weight
normalisation, weight standardisation) lies below a layer's node and is never met. For the
penalised tensors that the watched optimizer holds, their param groups' weight_decay is
read.

Each measured step lands as ``(step, penalised watched tensors, of which in a param group
with weight_decay > 0, the largest such weight_decay, whether that decay is decoupled)``.
Cost: nothing per step; on each of the first ``STEPS_MEASURED`` recorded steps one walk over
the few nodes above the loss function (no tensor is read: the exponent and the norm's order
are plain numbers the nodes keep) and one pass over the optimizer's param groups.

The same walk reads how strong a squared penalty is (real-bug batch 277: ``lambda = 0.5``
where 1e-4 was meant). ``lambda * sum(w ** 2)`` adds ``2 x lambda x w`` to each gradient:
under SGD it is weight_decay = 2 x lambda written by hand. The constants met on the way
from the loss's root to a parameter's square (a scale, a division by 2, a mean's 1 / numel,
a minus sign) multiply into its coefficient; a path through anything else (a product of
two computed values, a square root, a norm) gives none. The constants are 0-dimensional
tensors the nodes keep until backward frees them, so ``PenaltyStrengths`` reads them
before ``loss.backward()`` runs (``function_modes.BackwardWatch``), on the recorded steps
after the loss graph showed a squared parameter: each such step lands in
``run.observed.penalty_decays`` as ``(step, watched tensors penalised, the largest
2 x coefficient among them)``, one host read per constant on those few steps.
"""
from .function_modes import BackwardWatch   # the mode that sees loss.backward()
from .graph_walks import FirstStepsReader
STEPS_MEASURED = 3           # [design] recorded steps whose loss is walked (the penalty is
                             # written in the loop: the first steps show it)
WALK_LIMIT = 4096            # [design] nodes walked per loss: a penalty over a few hundred
                             # parameter tensors is three nodes each

# nodes that only combine the loss's addends or reduce one of them; the walk goes through
# these and stops at any other (a loss function's node, a layer's)
COMBINING = {"AddBackward0", "AddBackward1", "SubBackward0", "SubBackward1", "NegBackward0",
             "MulBackward0", "MulBackward1", "DivBackward0", "DivBackward1", "SumBackward0",
             "SumBackward1", "MeanBackward0", "MeanBackward1", "SqrtBackward0",
             "PowBackward0", "PowBackward1", "ViewBackward0", "ReshapeAliasBackward0",
             "UnsqueezeBackward0", "SqueezeBackward0", "StackBackward0", "CatBackward0"}
SQUARE = 2.0                 # [convention] L2: the exponent of a squared parameter
# nodes a penalty's coefficient passes through unchanged (or only scaled by a constant)
SCALING = {"AddBackward0", "AddBackward1", "SubBackward0", "SubBackward1", "NegBackward0",
           "MulBackward0", "DivBackward0", "SumBackward0", "MeanBackward0", "ViewBackward0",
           "ReshapeAliasBackward0", "UnsqueezeBackward0", "SqueezeBackward0"}


class ParameterPenalties:
    def __init__(self, adapter, observed, parameters, optimizer, on_error):
        self.observed, self.optimizer, self.on_error = observed, optimizer, on_error
        self._watched = {id(p) for p in parameters}
        self.measured = 0
        self.active = adapter.framework == "torch" and bool(self._watched)

    def on_loss(self, step, loss):
        if not self.active or self.measured >= STEPS_MEASURED or step is None or \
                getattr(loss, "grad_fn", None) is None:
            return
        self.measured += 1
        try:
            penalised = squared_parameters(combining_nodes(loss.grad_fn))
            watched = [p for p in penalised if id(p) in self._watched]
            if watched:
                self.observed.parameter_penalties.append(
                    (int(step), len(watched), *self._decay_over(watched)))

        except Exception as error:       # a graph we cannot read costs this step
            self.on_error(error)

    def _decay_over(self, tensors):
        """(tensors in a param group with weight_decay > 0, the largest such decay, whether
        it is decoupled) for ``tensors`` in the watched optimizer."""
        ids, decayed, largest, decoupled = {id(p) for p in tensors}, 0, 0.0, False
        for group in getattr(self.optimizer, "param_groups", None) or []:
            decay = group.get("weight_decay") or 0.0
            if not isinstance(decay, (int, float)) or decay <= 0:
                continue
            held = sum(1 for p in group["params"] if id(p) in ids)
            if held:
                decayed += held
                if decay > largest:
                    largest = float(decay)
                    decoupled = bool(group.get("decoupled_weight_decay")) or \
                        type(self.optimizer).__name__ == "AdamW"
        return decayed, largest, decoupled


def combining_nodes(root):
    """The graph nodes reachable from ``root`` through ``COMBINING`` nodes only (each node
    where the walk stopped included)."""
    seen, order, todo = set(), [], [root]
    while todo and len(order) < WALK_LIMIT:
        node = todo.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        order.append(node)
        if type(node).__name__ in COMBINING:
            todo.extend(child for child, _ in node.next_functions)
    return order


def squared_parameters(nodes):
    """The parameters that a node among ``nodes`` squares directly: ``w ** 2`` (a power of
    2), ``w * w``, or an L2 norm of ``w`` (the node's only input is the parameter's
    AccumulateGrad)."""
    found = {}
    for node in nodes:
        kind = type(node).__name__
        inputs = [child for child, _ in node.next_functions if child is not None]
        leaves = [getattr(child, "variable", None) for child in inputs]
        if not inputs or any(leaf is None for leaf in leaves):
            continue
        if kind == "PowBackward0" and getattr(node, "_saved_exponent", None) == SQUARE:
            squared = leaves[0]
        elif kind == "MulBackward0" and len(leaves) == 2 and leaves[0] is leaves[1]:
            squared = leaves[0]
        elif kind in ("LinalgVectorNormBackward0", "NormBackward0", "NormBackward1") and \
                getattr(node, "_saved_ord", getattr(node, "_saved_p", SQUARE)) in (SQUARE, None):
            squared = leaves[0]
        else:
            continue
        found[id(squared)] = squared
    return list(found.values())


class PenaltyStrengths(BackwardWatch):
    """``in_loss`` sees a squared parameter in the loss graph and sets ``wanted``; the
    backward watch then reads the penalty's coefficients before ``backward()`` frees them,
    on the next STEPS_MEASURED recorded steps (see the module doc)."""
    steps = STEPS_MEASURED
    first_backward_only = True

    def __init__(self, adapter, observed, parameters, on_error):
        super().__init__(adapter.framework == "torch", on_error)
        self.observed = observed
        self.watched = {id(p) for p in parameters}
        self.in_loss = _PenaltyScan(observed, self)

    def on_backward(self, step, loss):
        try:
            decays = [2.0 * c for key, c in penalty_coefficients(loss.grad_fn).items()
                      if key in self.watched and c > 0]
            if decays:
                self.observed.penalty_decays.append((int(step), len(decays), max(decays)))
        except Exception as error:      # a graph we cannot read: nothing more is read
            self.enabled = False
            self.on_error(error)


class _PenaltyScan(FirstStepsReader):
    """A reader of ``graph_walks.LossGraph``: does the loss's graph square a watched
    parameter anywhere? (A norm inside the forward wakes the watch too; its walk from the
    root through addends alone then finds no coefficient.)"""
    steps = STEPS_MEASURED

    def __init__(self, observed, owner):
        super().__init__(observed)
        self.owner = owner

    def keep(self, step, nodes):
        if any(id(p) in self.owner.watched for p in squared_parameters(nodes)):
            self.owner.wanted = True


def penalty_coefficients(root):
    """{id(parameter): c} for the parameters an addend of the loss squares as
    ``c x sum(w ** 2)``: the product of the constants on the way from ``root`` to the
    square (``lambda *``, ``/ 2``, a mean's ``1 / numel``, a minus sign), summed over the
    addends that square the same parameter. A path through any other node (a product of
    two computed values, a square root, a norm, a loss function) gives no coefficient."""
    found, todo, walked = {}, [(root, 1.0)], 0
    while todo and walked < WALK_LIMIT:
        node, scale = todo.pop()
        walked += 1
        kind = type(node).__name__
        children = [child for child, _ in node.next_functions]
        live = [child for child in children if child is not None]
        leaves = [getattr(child, "variable", None) for child in live]
        if kind == "PowBackward0" and getattr(node, "_saved_exponent", None) == SQUARE and \
                len(live) == 1 and leaves[0] is not None:
            found[id(leaves[0])] = found.get(id(leaves[0]), 0.0) + scale
            continue
        if kind == "MulBackward0" and len(live) == 2 and leaves[0] is not None and \
                leaves[0] is leaves[1]:
            found[id(leaves[0])] = found.get(id(leaves[0]), 0.0) + scale
            continue
        if kind not in SCALING or not live:
            continue
        factor = _constant_factor(node, kind, children)
        if factor is None:
            continue
        for position, child in enumerate(children):
            if child is not None:
                sign = -1.0 if kind.startswith("Sub") and position == 1 else 1.0
                todo.append((child, scale * factor * sign))
    return found


def _constant_factor(node, kind, children):
    """What the node multiplies its input's coefficient by: -1 for a negation, the constant
    of a product or a division by a constant, 1 / numel for a mean; None when the node
    combines two computed values in a product or a division."""
    if kind == "NegBackward0":
        return -1.0
    if kind == "MeanBackward0":
        numel = getattr(node, "_saved_self_sym_numel", None)
        return 1.0 / int(numel) if numel else None
    if kind in ("MulBackward0", "DivBackward0"):
        if sum(child is not None for child in children) != 1:
            return None
        if kind == "DivBackward0" and children[0] is None:
            return None                  # a constant divided by the penalty: no L2 term
        saved = "_saved_other" if children[0] is not None else "_saved_self"
        constant = _scalar(getattr(node, saved, None))
        if constant is None or (kind == "DivBackward0" and constant == 0):
            return None
        return 1.0 / constant if kind == "DivBackward0" else constant
    return 1.0


def _scalar(value):
    """A 0-dimensional (one-element) tensor's value as a float; None for anything else."""
    try:
        return float(value) if value is not None and value.numel() == 1 else None
    except (AttributeError, TypeError, RuntimeError):
        return None
