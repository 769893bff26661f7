"""Addends of the loss that carry no gradient (``run.observed.loss_terms``).

``loss = ce + beta * penalty`` where the penalty went through ``argmax``, ``.item()``,
NumPy or ``no_grad`` adds to the loss's VALUE but not to its gradient: the model trains as
if the term were not there, whatever ``beta`` is, and the printed loss hides it. In the
graph such a term is an input of the loss's top-level sum that has no graph of its own: a
``None`` among the ``next_functions`` of an ``AddBackward0``/``SubBackward0`` (torch), a
parent without a node that does not require a gradient (minigrad).

The walk starts at the loss and follows only its top-level sum: additions, subtractions
and scaling by a constant (``0.5 * (a + b)``, ``(a + b) / n``). A constant met deeper (a
constant inside a loss op, a mask, ``p * p.log()`` inside a hand-written KL) is not a term
of the loss, and not looked at.

A term can also keep its graph and still carry no gradient: computed through ``sign``,
``round``, ``floor``, ``ceil`` or ``trunc``, whose derivative is zero wherever it is defined
(real-bug batch 346: DSH's quantisation penalty typed ``(1 - u.sign()).abs()`` for ``(1 -
u.abs()).abs()``). torch keeps such an operation in the graph and backpropagates zeros
through it. An addend with a graph is such a term when every path from it to a tensor that
takes a gradient goes through one of those operations (``zero_derivative_cut``); the walk
stops at the first tensor it reaches that takes a gradient, so a live term costs a few
nodes. minigrad's ``sign`` returns a tensor without a graph: there such a term is a constant
addend already.

A constant's value is what tells a penalty (a sizable, changing share of the loss) from a
harmless offset (``loss + 0``, an accumulator started at ``torch.zeros(())``). minigrad keeps
the constant in the graph. torch does not (``AddBackward0`` saves only ``alpha``), so once
a recorded step showed such a term, the next ``VALUE_STEPS`` recorded steps run under a
small ``TorchFunctionMode`` that notes the constant operand of each one-value addition,
subtraction, multiplication and division with a graph. A loss without such a term (most)
never gets the mode: it costs one short walk of the graph's top on the first recorded
steps, which ``graph_growth.py`` takes anyway.
"""
import functools
import weakref

ADDS = {"AddBackward0", "SubBackward0", "add", "sub"}     # torch's nodes, minigrad's ops
SCALES = {"MulBackward0", "DivBackward0", "mul", "div"}
SUBTRACTIONS = {"SubBackward0", "sub"}
DIVISIONS = {"DivBackward0", "div"}
ARITHMETIC = {"add", "add_", "sub", "sub_", "mul", "mul_", "div", "div_", "true_divide",
              "subtract", "multiply", "divide"}   # torch function names the mode notes
ZERO_DERIVATIVE = {"SignBackward0", "SgnBackward0", "RoundBackward0", "RoundBackward1",
                   "FloorBackward0", "CeilBackward0", "TruncBackward0"}  # torch's nodes whose
                   # backward is zeros: piecewise-constant functions
CUT_WALK_LIMIT = 4096    # [design] nodes walked under one addend at most to find a tensor
                         # that takes a gradient; past it the addend counts as live
WALK_LIMIT = 32          # [design] nodes of the top-level sum walked at most: a loss of a
                         # dozen weighted terms is far under it
TERMS_PER_STEP = 4       # [design] constant addends kept per step (the largest first)
VALUE_STEPS = 8          # [design] recorded steps measured under the mode (torch)
CONSTANTS_PER_STEP = 256  # [design] one-value arithmetic results the mode notes at most
                          # per step


def constant_addends(framework, loss, constants=None):
    """[(operation, sign x scale or None, value or None, cut)] for each addend of the loss's
    top-level sum that carries no gradient: a constant (``cut`` ""), or a term whose graph
    is cut by a zero-derivative operation (``cut``: its node's name, torch only).
    ``constants`` (torch): what the mode noted - node -> the constant operand, (node, index)
    -> the value of an operand with a graph; without it the values are None (only the
    structure is known)."""
    if framework == "torch":
        return _walk(getattr(loss, "grad_fn", None), _torch_node(constants or {}),
                     zero_derivative_cut)
    if framework == "minigrad":
        return _walk(getattr(loss, "_node", None), _minigrad_node)
    return []


def zero_derivative_cut(node):
    """The name of the zero-derivative operation (``ZERO_DERIVATIVE``) met on the way when
    no path from the torch graph node ``node`` reaches a tensor that takes a gradient
    without going through one; None when a path does (or the walk was too long to tell)."""
    seen, stack, cut = set(), [node], None
    while stack:
        current = stack.pop()
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        name = type(current).__name__
        if name in ZERO_DERIVATIVE:
            cut = cut or name
            continue
        if name == "AccumulateGrad" or len(seen) > CUT_WALK_LIMIT:
            return None
        stack.extend(child for child, _ in getattr(current, "next_functions", ()))
    return cut


def _walk(root, read, cut_of=None):
    """The top-level sum under ``root``. ``read(node)`` -> (operation name, [(input node or
    None, constant or None)]) for one node; ``cut_of(node)`` -> the zero-derivative
    operation that cuts an addend's graph, or None."""
    found, stack, walked = [], [(root, 1.0)], 0
    while stack and walked < WALK_LIMIT:
        node, scale = stack.pop()
        if node is None:
            continue
        walked += 1
        name, inputs = read(node)
        if name in ADDS and len(inputs) == 2:
            for index, (child, constant) in enumerate(inputs):
                sign = -1.0 if name in SUBTRACTIONS and index == 1 else 1.0
                factor = None if scale is None else scale * sign
                if child is None:
                    found.append((name, factor, constant, ""))
                    continue
                cut = cut_of(child) if cut_of is not None else None
                if cut is not None:
                    found.append((name, factor, constant, cut))
                else:
                    stack.append((child, factor))
        elif name in SCALES and len(inputs) == 2:
            graphs = [index for index, (child, _) in enumerate(inputs) if child is not None]
            if len(graphs) != 1 or (name in DIVISIONS and graphs[0] != 0):
                continue                    # a product of two graphs, or constant / graph
            stack.append((inputs[graphs[0]][0], _scaled(scale, name, inputs[1 - graphs[0]][1])))
    return found


def _scaled(scale, name, constant):
    if scale is None or constant is None:
        return None
    value = float(constant)
    if name in DIVISIONS:
        return None if value == 0 else scale / value
    return scale * value


def _torch_node(constants):
    def read(node):
        children = [child for child, _ in getattr(node, "next_functions", ())]
        constant = constants.get(node)
        return type(node).__name__, [(child, constant if child is None else
                                      constants.get((node, index)))
                                     for index, child in enumerate(children)]
    return read


def _minigrad_node(node):
    function = node.function
    name = function.op_name() if hasattr(function, "op_name") else type(function).__name__
    return name, [(None, parent.data) if _minigrad_constant(parent) else
                  (getattr(parent, "_node", None), None) for parent in node.parents]


def _minigrad_constant(tensor):
    return getattr(tensor, "_node", None) is None and not getattr(tensor, "requires_grad", False)


# --- the mode that notes torch's constants -----------------------------------------------
def constants_mode(notes, computed=None, origins=None):
    """A fresh mode that writes node -> constant operand into ``notes`` (a dict) and, into
    ``computed`` (a dict id -> tensor), the one-value tensors without a graph that were made
    from tensors of several entries (a reduction) or from such a tensor: a penalty summed
    from detached copies, as opposed to a constant started at zero (real-bug batch 58).
    ``origins`` (a ``TensorOrigins``): where the step's tensors came from."""
    return _constants_mode_class()(notes, {} if computed is None else computed,
                                   TensorOrigins() if origins is None else origins)


# torch functions that build a tensor from host data (a NumPy array, Python numbers): what
# went through them may have left the graph on the way (``.numpy()``, ``.tolist()``)
HOST_FACTORIES = {"tensor", "as_tensor", "from_numpy", "asarray", "new_tensor"}


class TensorOrigins:
    """Where the tensors made under the constants mode came from (real-bug batch 206), kept
    by weak reference (nothing is held alive): ``from_model`` - computed from a tensor that
    requires a gradient or from one of these (a detached or ``no_grad`` copy of the model's
    output, an ``argmax`` of it); ``from_host`` - built from host data, or computed from such
    a tensor (a value that may have left the graph through NumPy); ``made`` - every tensor
    made under the mode. Made, and neither from the model nor from the host, is computed
    from data alone: a debiased Sinkhorn divergence's OT(prior, prior) term has no graph
    because it never touches the model, not because a graph was cut."""

    def __init__(self):
        self.from_model, self.from_host, self.made = _IdSet(), _IdSet(), _IdSet()

    def note(self, func, args, kwargs, result):
        results = [t for t in _tensors(result)]
        if not results:
            return
        inputs = _tensors(args) + _tensors(kwargs)
        if any(t.requires_grad or t in self.from_model for t in inputs):
            self.from_model.update(results)
        elif getattr(func, "__name__", "") in HOST_FACTORIES or \
                any(t in self.from_host for t in inputs):
            self.from_host.update(results)
        self.made.update(results)

    def copied(self, copy, original):
        """``copy`` (a detached copy made by the mode itself) comes from where ``original``
        came from."""
        for kept in (self.from_model, self.from_host, self.made):
            if original in kept:
                kept.add(copy)

    def data_only(self, tensor):
        """Whether ``tensor`` was made under the mode from data alone (see the class doc)."""
        try:
            return tensor in self.made and tensor not in self.from_model and \
                tensor not in self.from_host
        except TypeError:               # not a tensor (a Python number): not known
            return False


class _IdSet:
    """A set of tensors by identity, holding each by weak reference (``weakref.WeakSet``
    compares its members with ``==``, which a tensor answers element by element). Stale
    entries are harmless: a member must still be the very object asked about. Lives one
    step."""

    def __init__(self):
        self._refs = {}

    def add(self, tensor):
        self._refs[id(tensor)] = weakref.ref(tensor)

    def update(self, tensors):
        for tensor in tensors:
            self.add(tensor)

    def __contains__(self, tensor):
        ref = self._refs.get(id(tensor))
        return ref is not None and ref() is tensor


def _tensors(value):
    """The torch tensors in ``value``: itself, or the items of a list, tuple or dict (one
    level deep: ``torch.cat([a, b])``, ``out=`` keywords)."""
    import torch
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, (list, tuple)):
        found = []
        for item in value:
            if isinstance(item, torch.Tensor):
                found.append(item)
            elif isinstance(item, (list, tuple)):
                found.extend(t for t in item if isinstance(t, torch.Tensor))
        return found
    return []


@functools.lru_cache(maxsize=None)
def _constants_mode_class():
    import torch
    from torch.overrides import TorchFunctionMode

    class ConstantOperands(TorchFunctionMode):
        active = True

        def __init__(self, notes, computed, origins):
            super().__init__()
            self.notes, self.computed, self.origins = notes, computed, origins

        def __torch_function__(self, func, types, args=(), kwargs=None):
            result = func(*args, **(kwargs or {}))
            if self.active:
                try:
                    self.origins.note(func, args, kwargs or {}, result)
                    self._note_computed(result, args)
                    if getattr(func, "__name__", None) in ARITHMETIC:
                        self._note(result, args)
                except Exception:      # a measurement never breaks the user's step
                    self.active = False
            return result

        def _note_computed(self, result, args):
            """A one-value tensor without a graph made from several entries, or from one
            such tensor, is kept in ``computed`` (by id, the tensor kept alive)."""
            if not isinstance(result, torch.Tensor) or result.numel() != 1 or \
                    result.requires_grad or len(self.computed) >= CONSTANTS_PER_STEP:
                return
            for a in args:
                if isinstance(a, torch.Tensor) and not a.requires_grad and \
                        (a.numel() > 1 or id(a) in self.computed):
                    self.computed[id(result)] = result
                    return

        def _note(self, result, args):
            if not isinstance(result, torch.Tensor) or result.numel() != 1 or \
                    result.grad_fn is None or len(args) < 2 or \
                    len(self.notes) >= CONSTANTS_PER_STEP:
                return
            if all(isinstance(a, torch.Tensor) and a.requires_grad and a.numel() == 1
                   for a in args[:2]):
                for index, operand in enumerate(args[:2]):   # two terms with graphs: their
                    self.notes[(result.grad_fn, index)] = operand.detach()   # values
                return
            constants = [a for a in args[:2] if isinstance(a, (int, float)) or
                         isinstance(a, torch.Tensor) and not a.requires_grad]
            if len(constants) == 1:
                constant = constants[0]
                noted = constant.detach() if isinstance(constant, torch.Tensor) else constant
                if noted is not constant:
                    self.origins.copied(noted, constant)
                self.notes[result.grad_fn] = noted
                if isinstance(constant, torch.Tensor) and id(constant) in self.computed:
                    self.computed[id(noted)] = noted      # the same value, made the same way
    return ConstantOperands
