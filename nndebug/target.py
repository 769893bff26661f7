"""Load a command-line TARGET: ``path/to/file.py:factory``.

``factory()`` takes no arguments and returns a dict::

    dict(model=..., inputs=..., targets=..., loss_fn=..., optimizer=None)

Every subcommand that works on a user's model (check, gradcheck, lr-find) loads it
here, so every one of them fails the same way on bad input: a ``UsageError`` with
one line that says what was expected, what was found and what to do (exit code 2).
"""
import importlib.util
import itertools
import os
import sys

from .cli import UsageError, one_line

REQUIRED = ("model", "inputs", "targets", "loss_fn")
OPTIONAL = ("optimizer",)

_counter = itertools.count()


def split_target(spec):
    """'dir/file.py:make' -> ('dir/file.py', 'make'); a clear error for anything else."""
    if not isinstance(spec, str) or not spec.strip():
        raise UsageError("TARGET must look like path/to/file.py:factory, got an empty string")
    path, sep, name = spec.rpartition(":")
    if not sep or not path or not name:
        raise UsageError(f"TARGET must look like path/to/file.py:factory (a file and the name of a "
                         f"function in it, joined by ':'), got {spec!r}")
    if os.sep in name or "/" in name or name.endswith(".py"):
        raise UsageError(f"TARGET must end with ':factory' after the file name, got {spec!r}")
    if not name.isidentifier():
        raise UsageError(f"{name!r} in TARGET {spec!r} is not a Python function name")
    return path, name


def load_target(spec, *, required=REQUIRED, optional=OPTIONAL):
    """Import ``path/to/file.py``, call its ``factory()`` and check the dict it returns.

    Returns the dict with every key of ``required`` and ``optional`` present (optional
    ones default to None); extra keys are kept, so a subcommand may ask for more
    (``required=REQUIRED + ("batches",)``).
    """
    path, name = split_target(spec)
    if not os.path.exists(path):
        raise UsageError(f"no such file: {path} (TARGET {spec!r}); give the path of a Python file "
                         "relative to the current directory or absolute")
    if os.path.isdir(path):
        raise UsageError(f"{path} is a directory; TARGET needs a Python file: path/to/file.py:{name}")
    folder = os.path.dirname(os.path.abspath(path))
    sys.path.insert(0, folder)   # the file may import its neighbours, also inside factory()
    try:
        result = _call_factory(path, name, _import_file(path))
    finally:
        try:
            sys.path.remove(folder)
        except ValueError:
            pass
    return _check_result(result, path, name, required, optional)


def _call_factory(path, name, module):
    if not hasattr(module, name):
        defined = sorted(n for n, v in vars(module).items()
                         if callable(v) and not n.startswith("_") and getattr(v, "__module__", None)
                         == module.__name__)
        hint = f"; functions defined there: {', '.join(defined)}" if defined else ""
        raise UsageError(f"{path} has no function {name!r}{hint}")
    factory = getattr(module, name)
    if not callable(factory):
        raise UsageError(f"{path}:{name} is {_a(type(factory).__name__)}, not a function; it must "
                         "be a function returning dict(model=..., inputs=..., targets=..., loss_fn=...)")
    try:
        return factory()
    except SystemExit as error:
        raise UsageError(f"{path}:{name}() called sys.exit({error.code!r}); a factory must "
                         "return the dict, not end the program") from error
    except Exception as error:
        raise UsageError(f"{path}:{name}() raised {type(error).__name__}: "
                         f"{one_line(error, limit=300)}") from error


def _check_result(result, path, name, required, optional):
    if not isinstance(result, dict):
        raise UsageError(f"{path}:{name}() returned {_a(type(result).__name__)}; it must return "
                         "dict(model=..., inputs=..., targets=..., loss_fn=..., optimizer=None)")
    missing = [key for key in required if key not in result]
    if missing:
        raise UsageError(f"{path}:{name}() returned a dict without {', '.join(missing)}; expected "
                         f"keys {', '.join(required)} (and optionally {', '.join(optional)})")
    if "model" in required:
        try:
            from .adapters import adapt
            adapt(result["model"])
        except TypeError as error:
            raise UsageError(f"{path}:{name}(): {one_line(error, limit=300)}") from error
    if "loss_fn" in required and not callable(result["loss_fn"]):
        raise UsageError(f"{path}:{name}(): loss_fn must be callable as loss_fn(output, target), "
                         f"got {type(result['loss_fn']).__name__}")
    loaded = dict(result)
    for key in optional:
        loaded.setdefault(key, None)
    if "model" in required:
        use_threads_for(loaded["model"])
    return loaded


SMALL_MODEL = 1_000_000
"""Parameters below which torch runs on one thread: a tiny model's layers are too small to
split, and a thread pool only adds synchronisation (measured on the checklist's example:
`nndebug check` 12.9 s on the default threads, 4.0 s on one)."""
_threads_before = []


def use_threads_for(model):
    """One torch thread for a small model, torch's default for a big one; undone by
    ``restore_threads`` (``cli.main`` calls it when the command ends)."""
    torch = sys.modules.get("torch")
    if torch is None or not isinstance(model, torch.nn.Module):
        return
    size = sum(p.numel() for p in model.parameters())
    if size < SMALL_MODEL:
        _threads_before.append(torch.get_num_threads())
        torch.set_num_threads(1)


def restore_threads():
    torch = sys.modules.get("torch")
    while _threads_before and torch is not None:
        torch.set_num_threads(_threads_before.pop())


def _import_file(path):
    """Import a file by path under a private module name."""
    path = os.path.abspath(path)
    module_name = f"_nndebug_target_{next(_counter)}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise UsageError(f"cannot import {path}: not a Python source file (expected a .py file)")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except SyntaxError as error:
        sys.modules.pop(module_name, None)
        raise UsageError(f"{path} has a syntax error on line {error.lineno}: {error.msg}") from error
    except SystemExit as error:   # e.g. a script's own argparse or sys.exit at import
        sys.modules.pop(module_name, None)
        raise UsageError(f"importing {path} called sys.exit({error.code!r}); put the code that "
                         "runs the script under `if __name__ == \"__main__\":`") from error
    except Exception as error:
        sys.modules.pop(module_name, None)
        raise UsageError(f"importing {path} failed: {type(error).__name__}: "
                         f"{one_line(error, limit=300)}") from error
    return module


def _a(noun):
    return ("an " if noun[:1].lower() in "aeiou" else "a ") + noun
