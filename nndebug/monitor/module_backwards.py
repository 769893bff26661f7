"""Modules whose class writes its own ``backward`` method (MODULE_BACKWARD_NEVER_CALLED,
``nndebug.rules.module_backwards``).

Autograd calls the ``backward`` of a ``torch.autograd.Function`` (and of a minigrad
Function); it never calls a method of that name on a module. A gradient reversal layer, a
straight-through estimator or a gradient clamp written as a module with ``forward`` and
``backward`` therefore runs its forward only: the gradient passes through the module as
through whatever its forward computed (an identity, for a reversal layer), and the
custom rule is dead code.

Read when findings are asked for: one pass over the model's modules, no per-step cost.
A module is kept when a class of its own (not the framework's) defines ``backward`` as a
function taking a gradient (at least one argument besides ``self``), and that class's
source never calls the method itself (``self.backward(...)``, or a gradient hook that
could: ``register_hook``, ``register_full_backward_hook``, ``register_backward_hook``)
- a module that routes its own ``backward`` through a tensor hook is a working layer. A
class whose source cannot be read is left alone. Kept in
``run.observed.module_backwards`` as ``[(module name, class name)]`` ("" is the model).
"""
import inspect

# the packages whose classes are the framework's own (their methods are never the user's)
FRAMEWORK_PACKAGES = ("torch", "minigrad")
# training frameworks whose modules have a backward(loss) hook that their trainer calls
# (LightningModule.backward, DeepSpeedEngine.backward): a module under one of these is
# skipped whole, also when the user's subclass overrides that hook
TRAINER_PACKAGES = ("lightning", "pytorch_lightning", "lightning_fabric", "deepspeed")
# what in a class's source shows it calls its own backward itself (then it is not dead)
SELF_CALLS = ("self.backward(", "register_hook", "register_full_backward_hook",
              "register_backward_hook", "register_full_backward_pre_hook")


def _package(cls):
    return (getattr(cls, "__module__", "") or "").split(".")[0]


def _is_framework_class(cls):
    return _package(cls) in FRAMEWORK_PACKAGES or cls is object


def _user_backward_class(module):
    """The first user class in the module's MRO that defines ``backward`` taking a
    gradient, or None."""
    if any(_package(cls) in TRAINER_PACKAGES for cls in type(module).__mro__):
        return None
    for cls in type(module).__mro__:
        if _is_framework_class(cls):
            return None
        method = vars(cls).get("backward")
        if method is None:
            continue
        if isinstance(method, (staticmethod, classmethod)) or not inspect.isfunction(method):
            return None
        positional = [p for p in inspect.signature(method).parameters.values()
                      if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL)]
        return cls if len(positional) >= 2 else None
    return None


def _calls_its_own_backward(module):
    """True when any user class of the module mentions a call of its backward or a
    gradient hook; None when a source cannot be read."""
    for cls in type(module).__mro__:
        if _is_framework_class(cls):
            break
        try:
            source = inspect.getsource(cls)
        except (OSError, TypeError):
            return None
        if any(mark in source for mark in SELF_CALLS):
            return True
    return False


def read_module_backwards(adapter, observed, on_error):
    try:
        found = []
        for name, module in adapter.named_modules():
            cls = _user_backward_class(module)
            if cls is None or _calls_its_own_backward(module) is not False:
                continue
            found.append((name, cls.__name__))
        observed.module_backwards = found
    except Exception as error:            # never break the user's run
        on_error(error)
