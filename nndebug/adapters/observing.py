"""What each framework lets a monitor see *around* a model: framework-specific, kept here.

The monitor's observers (``nndebug.monitor.around``) ask three questions, answered per
framework:

- ``global_module_hooks(framework, before, after)``: be told about every module call,
  also of modules the model does not register (both frameworks' global module hooks,
  ``register_module_forward_pre_hook`` / ``register_module_forward_hook``).
  ``before``/``after`` are bound methods of one object, held weakly. Returns a handle with
  ``.remove()``.
- ``loss_inputs_from_graph(framework, loss)``: ``(loss name, output, target)`` read off the
  loss tensor's graph when its last operation is a known loss (torch keeps the inputs on
  the backward node, minigrad on the graph node), else None.
- ``graph_leaves(framework, tensor, limit)``: the leaf tensors that require a gradient in
  the graph that produced ``tensor`` (parameters, registered or not).

Each answer is cheap to ask when nothing is there, and never changes the graph.
"""

# torch backward-node names of the element-wise losses, and the functional name they stand for
TORCH_LOSS_NODES = {
    "MseLossBackward0": "mse_loss", "L1LossBackward0": "l1_loss",
    "SmoothL1LossBackward0": "smooth_l1_loss", "HuberLossBackward0": "huber_loss",
    "BinaryCrossEntropyBackward0": "binary_cross_entropy",
    "BinaryCrossEntropyWithLogitsBackward0": "binary_cross_entropy_with_logits",
    "MultilabelMarginLossBackward0": "multilabel_margin_loss",
}
# minigrad Function class names of its loss primitives, and their functional names
MINIGRAD_LOSS_NODES = {"MSE": "mse_loss", "BCEWithLogits": "binary_cross_entropy_with_logits",
                       "CrossEntropy": "cross_entropy", "L1": "l1_loss",
                       "SmoothL1": "smooth_l1_loss", "BCE": "binary_cross_entropy"}
GRAPH_WALK_LIMIT = 20000       # nodes visited at most (a very large graph is cut short)


class _Handles:
    def __init__(self, handles):
        self.handles = handles

    def remove(self):
        for handle in self.handles:
            handle.remove()
        self.handles = []


def global_module_hooks(framework, before, after):
    """``before(module, inputs)`` and ``after(module, inputs, output)`` for every module
    call anywhere, until ``.remove()``; None where the framework has no such hooks.

    The hooks hold the two callbacks' owner only weakly: when the owner is gone (a monitor
    dropped without ``close()``), they remove themselves at the next module call instead
    of running for every model in the process forever.
    """
    if framework == "torch":
        from torch.nn.modules import module as registry
    elif framework == "minigrad":
        from minigrad.nn import module as registry
    else:
        return None
    import weakref

    owner = weakref.ref(before.__self__)
    before_name, after_name = before.__name__, after.__name__
    handles = _Handles([])

    def on_before(module, inputs):
        alive = owner()
        if alive is None:
            handles.remove()
            return None
        getattr(alive, before_name)(module, inputs)
        return None

    def on_after(module, inputs, output):
        alive = owner()
        if alive is None:
            handles.remove()
            return None
        getattr(alive, after_name)(module, inputs, output)
        return None

    handles.handles = [registry.register_module_forward_pre_hook(on_before),
                       registry.register_module_forward_hook(on_after)]
    return handles


def loss_inputs_from_graph(framework, loss):
    """``(name, output, target)`` when ``loss``'s last operation is a known loss, else None."""
    if framework == "torch":
        node = getattr(loss, "grad_fn", None)
        name = TORCH_LOSS_NODES.get(type(node).__name__) if node is not None else None
        if name is None:
            return None
        try:
            output = getattr(node, "_saved_self", None)
            target = getattr(node, "_saved_target", None)
        except RuntimeError:       # read after backward: the node freed what it saved
            return None
        return None if output is None else (name, output, target)
    if framework == "minigrad":
        node = getattr(loss, "_node", None)
        if node is None:
            return None
        name = MINIGRAD_LOSS_NODES.get(getattr(node.function, "__name__", ""))
        if name is None or not node.parents:
            return None
        parents = list(node.parents)
        if len(parents) > 1:
            return name, parents[0], parents[1]
        # class ids are no graph input (no gradient): cross_entropy keeps them on its ctx
        target = getattr(node.ctx, "target", None)
        if target is not None:
            import minigrad
            target = minigrad.tensor(target)
        return name, parents[0], target
    return None


def graph_leaves(framework, tensor, limit=GRAPH_WALK_LIMIT):
    """The leaf tensors requiring a gradient that ``tensor`` was computed from (each once)."""
    leaves, seen = [], set()
    if framework == "torch":
        stack = [getattr(tensor, "grad_fn", None)]
        while stack and len(seen) < limit:
            node = stack.pop()
            if node is None or id(node) in seen:
                continue
            seen.add(id(node))
            variable = getattr(node, "variable", None)     # AccumulateGrad: a leaf
            if variable is not None:
                leaves.append(variable)
            stack.extend(next_node for next_node, _ in getattr(node, "next_functions", ()))
        return leaves
    if framework == "minigrad":
        stack = [tensor]
        while stack and len(seen) < limit:
            t = stack.pop()
            if id(t) in seen:
                continue
            seen.add(id(t))
            node = getattr(t, "_node", None)
            if node is None:
                if getattr(t, "requires_grad", False):
                    leaves.append(t)
                continue
            stack.extend(node.parents)
        return leaves
    return leaves
