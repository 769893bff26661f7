"""Recurrent layers started from random numbers drawn inside ``forward``, read once at
watch start (RNN_STATE_DRAWN_AT_RANDOM, ``rules/random_states.py``).

``self.lstm(x, (torch.randn(...), torch.randn(...)))`` starts every sequence from fresh
noise on every call: the same input gets another prediction each time it is scored, in
evaluation as in training (``model.eval()`` turns no random draw off), and training spends
capacity washing the noise out. PyTorch's default initial state is zeros; a learned one is a
parameter. Nothing in the training numbers shows it clearly (the loss is only noisier), so
the signal is in the code, as for dropout functions (``functional_dropout.py``).

Once, when watching starts, the ``forward`` of each module class of the model that holds a
recurrent layer (a class named RNN, LSTM or GRU, or deriving from RNNBase) is read
(``inspect.getsource``, ``ast``). A call of such a child (``self.rnn(x, state)``) whose
initial state, the second argument or ``hx=``, is drawn at random is kept: drawn means the
expression calls ``torch.randn``/``rand``/``randn_like``/``rand_like``/``normal``, a tensor's
``normal_``/``uniform_``, a method of the same class whose ``return`` draws (the tutorials'
``self.init_hidden()``), or reads a name or ``self.`` attribute assigned such a value earlier
in the method. The methods ``forward`` calls on ``self`` are read the same way, one level
down (a tutorial's ``_get_lstm_features``); other methods (a ``sample()`` that may start
from noise on purpose) are not. A call inside an ``if`` that tests ``training`` is left
alone (noise only while training is a choice). Kept in ``run.observed.random_rnn_states``
as dicts (module class, recurrent child, file, line, call text; a declared field of
``nndebug.observed.Observed``: saved and loaded with the run). Framework-free in form
(class names, source text), written for PyTorch's names.

Cost: the source of each user module class holding a recurrent layer is parsed once, when
watching starts (milliseconds); nothing per step.
"""
import ast
import inspect
import textwrap

from .functional_dropout import _reads_training, dotted_name

RECURRENT_CLASSES = {"RNN", "LSTM", "GRU", "RNNBase"}
RANDOM_FUNCTIONS = {"randn", "rand", "randn_like", "rand_like", "normal"}
RANDOM_METHODS = {"normal_", "uniform_"}
LIBRARIES = ("torch", "minigrad", "nndebug")
CALL_TEXT_LIMIT = 80
STATE_POSITION = 1           # rnn(input, hx): the state comes second
STATE_KEYWORD = "hx"


def read_random_rnn_states(adapter, observed, on_error=lambda error: None):
    """Set ``observed.random_rnn_states``; never breaks the user's run."""
    try:
        found = []
        for cls, module in user_module_classes(adapter):
            recurrent = {name for name, child in _children(module)
                         if any(c.__name__ in RECURRENT_CLASSES for c in type(child).__mro__)}
            if recurrent:
                found.extend(_random_state_calls(cls, recurrent))
        observed.random_rnn_states = found
    except Exception as error:
        on_error(error)


def user_module_classes(adapter):
    """(class, first module of it) for each module class of the model written by the user:
    the code a source reader looks at once (the frameworks' own classes are left out)."""
    seen = set()
    for _, module in adapter.named_modules():
        cls = type(module)
        if cls in seen or cls.__module__.split(".")[0] in LIBRARIES:
            continue
        seen.add(cls)
        yield cls, module


def _children(module):
    children = getattr(module, "named_children", None)
    return list(children()) if callable(children) else []


def _parse_function(function):
    try:
        lines, first_line = inspect.getsourcelines(function)
        file = inspect.getsourcefile(function) or ""
        source = textwrap.dedent("".join(lines))
        return ast.parse(source), source, file, first_line
    except (OSError, TypeError, SyntaxError, IndentationError):
        return None


def _random_state_calls(cls, recurrent):
    """The calls of a recurrent child with a drawn state in ``forward`` and in the methods
    of the class that ``forward`` calls (``self._get_features(x)``), one level down."""
    methods = _own_methods(cls)
    forward = methods.get("forward")
    parsed = _parse_function(forward) if forward is not None else None
    if parsed is None:
        return []
    drawing_methods = _drawing_methods(methods)
    called = {_self_attribute(n.func) for n in ast.walk(parsed[0]) if isinstance(n, ast.Call)}
    found = _calls_with_drawn_states(cls, parsed, recurrent, drawing_methods)
    for name in sorted(called & set(methods) - {"forward"} - drawing_methods):
        helper = _parse_function(methods[name])
        if helper is not None:
            found.extend(_calls_with_drawn_states(cls, helper, recurrent, drawing_methods))
    return found


def _calls_with_drawn_states(cls, parsed, recurrent, drawing_methods):
    tree, source, file, first_line = parsed
    drawn = _drawn_names(tree, drawing_methods)
    found = []
    for call in _unguarded_calls(tree):
        child = _self_attribute(call.func)
        if child not in recurrent:
            continue
        state = call.args[STATE_POSITION] if len(call.args) > STATE_POSITION else next(
            (k.value for k in call.keywords if k.arg == STATE_KEYWORD), None)
        if state is not None and _draws(state, drawn, drawing_methods):
            text = (ast.get_source_segment(source, call) or "").replace("\n", " ")
            found.append({"module_type": cls.__name__, "layer": child, "file": file,
                          "line": first_line + call.lineno - 1,
                          "call": text[:CALL_TEXT_LIMIT]})
    return found


def _own_methods(cls):
    """{name: function} of the class and its parents, the libraries' classes left out."""
    methods = {}
    for klass in reversed(cls.__mro__):
        if klass.__module__.split(".")[0] in LIBRARIES or klass is object:
            continue
        methods.update({name: f for name, f in vars(klass).items() if inspect.isfunction(f)})
    return methods


def _drawing_methods(methods):
    """Names of the methods (forward aside) whose return value draws at random."""
    out = set()
    for name, function in methods.items():
        if name == "forward":
            continue
        parsed = _parse_function(function)
        if parsed is None:
            continue
        tree = parsed[0]
        drawn = _drawn_names(tree, set())
        if any(isinstance(n, ast.Return) and n.value is not None and
               _draws(n.value, drawn, set()) for n in ast.walk(tree)):
            out.add(name)
    return out


def _drawn_names(tree, drawing_methods):
    """Names (and ``self.x`` attributes, as 'self.x') assigned a drawn value in ``tree``."""
    drawn = set()
    assigns = [n for n in ast.walk(tree) if isinstance(n, (ast.Assign, ast.AnnAssign))]
    for _ in range(3):                     # a few passes follow h0 -> state -> hidden
        before = len(drawn)
        for node in assigns:
            if node.value is None or not _draws(node.value, drawn, drawing_methods):
                continue
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for leaf in ast.walk(target):
                    key = _key(leaf)
                    if key is not None:
                        drawn.add(key)
        if len(drawn) == before:
            break
    return drawn


def _draws(expression, drawn, drawing_methods):
    for node in ast.walk(expression):
        key = _key(node)
        if key is not None and key in drawn:
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            attr = node.func.attr
            if attr in RANDOM_METHODS:
                return True
            if attr in RANDOM_FUNCTIONS and dotted_name(node.func.value) in ("torch", "np.random",
                                                                         "numpy.random"):
                return True
            if attr in drawing_methods and dotted_name(node.func.value) == "self":
                return True
    return False


def _key(node):
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and \
            node.value.id == "self":
        return f"self.{node.attr}"
    return None


def _self_attribute(func):
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and \
            func.value.id == "self":
        return func.attr
    return None


def _unguarded_calls(node, guarded=False):
    """Calls under ``node``, except those inside an ``if`` whose test reads ``training``."""
    if isinstance(node, (ast.If, ast.IfExp)) and _reads_training(node.test):
        guarded = True
    if not guarded and isinstance(node, ast.Call):
        yield node
    for child in ast.iter_child_nodes(node):
        yield from _unguarded_calls(child, guarded)
