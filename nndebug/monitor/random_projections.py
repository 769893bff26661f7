"""Random feature matrices drawn anew inside ``forward``, read once at watch start
(RANDOM_FEATURES_REDRAWN_EVERY_CALL, ``rules/random_projections.py``; real-bug batch 113).

A Fourier-feature mapping, a random-features kernel or a random projection multiplies its
input by a matrix drawn at random once: ``B = torch.randn(2, 256) * 10`` belongs in
``__init__`` (a buffer). Drawn in ``forward``, every call maps the same input through other
features, so the layers after it cannot learn what any feature means, and evaluation answers
with yet another draw (tancik/fourier-feature-networks#22: "the gaussian basis must be fixed
instead of random sampling in the training process"). The loss only plateaus; the cause is
in the code, as for a recurrent state drawn at random (``random_states.py``).

Once, when watching starts, the ``forward`` of each user module class of the model (and the
methods of the class it calls on ``self``, one level down) is read (``inspect.getsource``,
``ast``). A matrix product - ``a @ b``, ``torch.matmul/mm/bmm/einsum/tensordot``,
``F.linear`` - is kept when one operand is a drawn matrix: an expression calling
``torch.randn``/``rand``/``normal`` (or a name assigned such a value earlier in the method,
followed through a few assignments) whose shape does not follow the batch. Left alone, as
deliberate draws:
  - noise per sample: the draw is ``*_like``, or its arguments read a batch size
    (``x.shape[0]``, ``x.size(0)``, ``len(x)``, a whole ``x.shape``/``x.size()``, or a name
    assigned from one) - a reparameterised sample ``mu + L @ eps`` draws one per row;
  - a learned distribution: the operand also reads an attribute of the module that is a
    parameter or a submodule (Bayes-by-backprop's ``w = self.mu + self.sigma * eps``);
  - a draw inside any ``if`` (lazy initialisation, ``if self.B is None``, or a redraw every
    N calls, Performer's feature redrawing) or an ``if`` testing ``training``.
Kept in ``run.observed.random_projections`` as (module class, file, line, call text) rows.

Cost: the source of each user module class is parsed once, when watching starts
(milliseconds); nothing per step.
"""
import ast

from .functional_dropout import _reads_training, dotted_name
from .random_states import (_key, _own_methods, _parse_function, _self_attribute,
                            user_module_classes)

DRAWS = {"randn", "rand", "normal"}                  # torch.<draw>(shape...)
LIKE_DRAWS = {"randn_like", "rand_like"}             # one value per element of a tensor
MATMUL_FUNCTIONS = {"matmul", "mm", "bmm", "einsum", "tensordot", "linear", "mv"}
MATMUL_OWNERS = {"torch", "F", "torch.nn.functional", "nn.functional", "functional"}
BATCH_AXIS = 0
CALL_TEXT_LIMIT = 80
ASSIGNMENT_PASSES = 3          # B -> scaled -> projection: names followed that far


def read_random_projections(adapter, observed, on_error=lambda error: None):
    """Set ``observed.random_projections``; never breaks the user's run."""
    try:
        found = []
        for cls, module in user_module_classes(adapter):
            found.extend(_redrawn_products(cls, module))
        observed.random_projections = found
    except Exception as error:
        on_error(error)


def _redrawn_products(cls, module):
    methods = _own_methods(cls)
    forward = methods.get("forward")
    parsed = _parse_function(forward) if forward is not None else None
    if parsed is None:
        return []
    found = _products_with_draws(cls, module, parsed)
    called = {_self_attribute(n.func) for n in ast.walk(parsed[0]) if isinstance(n, ast.Call)}
    for name in sorted(called & set(methods) - {"forward"}):
        helper = _parse_function(methods[name])
        if helper is not None:
            found.extend(_products_with_draws(cls, module, helper))
    return found


def _products_with_draws(cls, module, parsed):
    tree, source, file, first_line = parsed
    arguments = _argument_names(tree)
    batch_names = _names_assigned(tree, _reads_batch, set())
    drawn = _names_assigned(tree, lambda value, names: _draws(value, names, batch_names,
                                                              arguments),
                            set(), unconditional=True)
    carrying = _learned_names(module, tree)
    found = []
    for node in _products(tree):
        operands = _operands(node)
        if any(_draws(o, drawn, batch_names, arguments) and
               not any(_key(n) in carrying for n in ast.walk(o)) for o in operands):
            text = (ast.get_source_segment(source, node) or "").replace("\n", " ")
            found.append((cls.__name__, file, first_line + node.lineno - 1,
                          text[:CALL_TEXT_LIMIT]))
    return found


def _argument_names(tree):
    function = next((n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)), None)
    if function is None:
        return []
    args = function.args
    names = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]
    names += [a.arg for a in (args.vararg, args.kwarg) if a is not None]
    return [n for n in names if n != "self"]


def _names_assigned(tree, test, names, unconditional=False):
    """Names given a value ``test(value, names)`` accepts, followed through assignments
    (``unconditional``: assignments inside an ``if`` left out)."""
    assigns = [n for n in _statements(tree, skip_if=unconditional)
               if isinstance(n, (ast.Assign, ast.AnnAssign))]
    names = set(names)
    for _ in range(ASSIGNMENT_PASSES):
        before = len(names)
        for node in assigns:
            if node.value is None or not test(node.value, names):
                continue
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(k for target in targets for leaf in ast.walk(target)
                         if (k := _key(leaf)) is not None)
        if len(names) == before:
            break
    return names


def _statements(node, skip_if, inside_if=False):
    """Every node under ``node``; with ``skip_if``, none inside an ``if`` (or a conditional
    expression: ``a if c else torch.randn(...)`` draws on some calls only)."""
    if isinstance(node, (ast.If, ast.IfExp)):
        inside_if = True
    if not (skip_if and inside_if):
        yield node
    for child in ast.iter_child_nodes(node):
        yield from _statements(child, skip_if, inside_if)


def _reads_batch(expression, batch_names):
    """Whether the expression reads a batch size: x.shape[0], x.size(0), len(x), a whole
    x.shape / x.size(), or one of ``batch_names`` itself (not through an attribute such as
    its x.shape[-1])."""
    owners = {id(n.value) for n in ast.walk(expression) if isinstance(n, ast.Attribute)}
    for node in ast.walk(expression):
        key = _key(node)
        if key is not None and key in batch_names and id(node) not in owners:
            return True
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and \
                node.value.attr == "shape":
            index = node.slice
            if not (isinstance(index, ast.Constant) and index.value != BATCH_AXIS) and not (
                    isinstance(index, ast.UnaryOp) and isinstance(index.op, ast.USub)):
                return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr == "size":
            first = node.args[0] if node.args else None
            if first is None or isinstance(first, ast.Constant) and first.value == BATCH_AXIS:
                return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
                node.func.id == "len":
            return True
        if isinstance(node, ast.Starred) or (isinstance(node, ast.Attribute) and
                                              node.attr == "shape" and
                                              not _subscripted(node, expression)):
            return True
    return False


def _subscripted(attribute, expression):
    return any(isinstance(n, ast.Subscript) and n.value is attribute
               for n in ast.walk(expression))


def _draws(expression, drawn, batch_names, arguments):
    """Whether the expression holds a draw of a fixed (batch-free) shape, unconditionally."""
    for node in _statements(expression, skip_if=True):
        key = _key(node)
        if key is not None and key in drawn:
            return True
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        if node.func.attr in LIKE_DRAWS:
            continue
        if node.func.attr in DRAWS and dotted_name(node.func.value) == "torch":
            shape = node.args + [k.value for k in node.keywords if k.arg in ("size",)]
            data = set(batch_names) | set(arguments)
            if not any(_reads_batch(a, data) for a in shape):
                return True
    return False


def _learned_names(module, tree):
    """The module's parameters and submodules (``self.<name>``) and the names the method
    assigns from them: an operand reading one is a learned distribution (mu + sigma * eps),
    not a fixed random matrix."""
    learned = {f"self.{name}" for name, value in vars(module).get("_parameters", {}).items()
               if value is not None}
    learned |= {f"self.{name}" for name in vars(module).get("_modules", {})}
    return _names_assigned(tree, lambda value, names: any(
        _key(n) in names for n in ast.walk(value)), learned)


def _products(tree):
    """Matrix products in ``tree`` outside an ``if`` testing ``training``."""
    for node in _unguarded(tree):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
            yield node
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr in MATMUL_FUNCTIONS and \
                dotted_name(node.func.value) in MATMUL_OWNERS:
            yield node


def _operands(node):
    if isinstance(node, ast.BinOp):
        return [node.left, node.right]
    return list(node.args[1:] if node.func.attr == "einsum" else node.args)


def _unguarded(node, guarded=False):
    if isinstance(node, (ast.If, ast.IfExp)) and _reads_training(node.test):
        guarded = True
    if not guarded:
        yield node
    for child in ast.iter_child_nodes(node):
        yield from _unguarded(child, guarded)
