"""Dropout function calls that keep dropping in eval mode, read once at watch start.

``nn.Dropout`` follows ``model.eval()``; the dropout FUNCTION does not: ``F.dropout(x, p)``
takes ``training=True`` by default, so a forward that calls it without
``training=self.training`` still drops values when the model is evaluated, and gives
another answer on every run for the same input. Training looks healthy; only evaluation,
which watch never sees, is wrong. So the signal is in the code, not in the numbers.

Once, when watching starts, the ``forward`` of each module class of the model is read
(``inspect.getsource``) and parsed (``ast``) for calls to ``dropout``, ``dropout1d/2d/3d``,
``alpha_dropout`` or ``feature_alpha_dropout`` whose ``training`` argument is missing or a
literal True. Each call lands in ``run.observed.functional_dropouts``; the rule
DROPOUT_IGNORES_EVAL (``rules/functional_dropout.py``) names it.

Left alone: a call given any other ``training`` (``self.training``, a variable), by keyword
or third positional argument; a call inside an ``if`` that tests ``training`` (it drops only
when training); a call with ``**kwargs`` (not known); the library's own classes (torch,
minigrad); a class without source (built in a notebook cell or by ``exec``).

Each ``forward`` is parsed once per process (cached by the function): a model's second
watch, or a model of a hundred identical blocks, costs one dictionary look-up per class.
"""
import ast
import inspect
import textwrap
import weakref

from ..observed import FunctionalDropout

DROPOUT_FUNCTIONS = {"dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout",
                     "feature_alpha_dropout"}
TRAINING_POSITION = 2        # dropout(input, p, training, inplace): training comes third
LIBRARIES = ("torch", "minigrad", "nndebug")   # their classes follow eval() already
CALL_TEXT_LIMIT = 80         # characters of the call kept as evidence

_parsed = weakref.WeakKeyDictionary()   # forward function -> (FunctionalDropout, ...)


def read_functional_dropouts(adapter, observed, on_error=lambda error: None):
    """Fill ``observed.functional_dropouts`` with the calls of every module class of the
    model (replacing what it held). Never breaks the user's run: an error goes to
    ``on_error`` and leaves the list empty."""
    try:
        found, seen = [], set()
        for _, module in adapter.named_modules():
            forward = getattr(type(module), "forward", None)
            if forward is None or id(forward) in seen:
                continue
            seen.add(id(forward))
            found.extend(calls_in_forward(forward, type(module).__name__))
        observed.functional_dropouts[:] = found
    except Exception as error:
        on_error(error)


def calls_in_forward(forward, class_name):
    """The dropout calls of ``forward`` that ignore eval mode (cached per function)."""
    try:
        return _parsed[forward]
    except (KeyError, TypeError):       # not parsed yet, or not weak-referenceable
        pass
    calls = () if _library_code(forward) else tuple(_parse(forward, class_name))
    try:
        _parsed[forward] = calls
    except TypeError:
        pass
    return calls


def _library_code(forward):
    module = getattr(forward, "__module__", None) or ""
    return module.split(".")[0] in LIBRARIES


def _parse(forward, class_name):
    """FunctionalDropout per offending call; nothing where the source cannot be read."""
    try:
        lines, first_line = inspect.getsourcelines(forward)
        file = inspect.getsourcefile(forward) or ""
        source = textwrap.dedent("".join(lines))
        tree = ast.parse(source)
    except (OSError, TypeError, SyntaxError, IndentationError):
        return []                       # no source: a notebook cell, exec, a C function
    return [FunctionalDropout(module_type=class_name, file=file,
                              line=first_line + call.lineno - 1, call=_call_text(source, call))
            for call in _unguarded_calls(tree) if _ignores_eval(call)]


def _unguarded_calls(node, guarded=False):
    """Dropout function calls under ``node``, except those inside an ``if`` (or a
    conditional expression) whose test reads ``training``."""
    if isinstance(node, (ast.If, ast.IfExp)) and _reads_training(node.test):
        guarded = True
    if not guarded and isinstance(node, ast.Call) and _dropout_function(node.func):
        yield node
    for child in ast.iter_child_nodes(node):
        yield from _unguarded_calls(child, guarded)


def _reads_training(test):
    return any(isinstance(n, ast.Attribute) and n.attr == "training" or
               isinstance(n, ast.Name) and n.id == "training" for n in ast.walk(test))


def _dropout_function(func):
    """``dropout(...)``, ``F.dropout(...)``, ``torch.nn.functional.dropout2d(...)``; not a
    module attribute (``self.dropout(x)``: an nn.Dropout layer) and not ``torch.dropout``
    (its ``train`` argument has no default)."""
    if isinstance(func, ast.Name):
        return func.id in DROPOUT_FUNCTIONS
    if not isinstance(func, ast.Attribute) or func.attr not in DROPOUT_FUNCTIONS:
        return False
    owner = dotted_name(func.value)
    return owner is not None and owner.split(".")[0] != "self" and owner != "torch"


def dotted_name(node):
    """'torch.nn.functional' for that attribute chain; None for anything else (also read by
    ``random_states.py``)."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        owner = dotted_name(node.value)
        return None if owner is None else f"{owner}.{node.attr}"
    return None


def _ignores_eval(call):
    """Whether the call drops in eval mode too: ``training`` missing (default True) or a
    literal True. Unknown (``*args``, ``**kwargs``): False."""
    for keyword in call.keywords:
        if keyword.arg is None:
            return False
        if keyword.arg == "training":
            return _literal_true(keyword.value)
    if any(isinstance(arg, ast.Starred) for arg in call.args):
        return False
    if len(call.args) > TRAINING_POSITION:
        return _literal_true(call.args[TRAINING_POSITION])
    return True


def _literal_true(node):
    return isinstance(node, ast.Constant) and node.value is True


def _call_text(source, call):
    text = " ".join((ast.get_source_segment(source, call) or "").split())
    return text if len(text) <= CALL_TEXT_LIMIT else text[:CALL_TEXT_LIMIT - 3] + "..."
