"""nndebug: find what is silently wrong in neural-network training.

Works on PyTorch and minigrad models alike through one adapter interface
(``nndebug.adapt``). PyTorch is optional: with only NumPy installed, everything
works on minigrad models.
"""
import importlib

from .findings import Finding

__version__ = "0.1.0"

# public name -> module that defines it; imported on first use so that
# `import nndebug` is cheap and never imports torch by itself
_LAZY = {
    "adapt": "nndebug.adapters",
    "gradcheck": "nndebug.gradcheck",
    "locate": "nndebug.locate",
    "compare": "nndebug.compare",
    "watch": "nndebug.monitor",
    "overfit_one_batch": "nndebug.probes.overfit",
    "find_lr": "nndebug.probes.lr_finder",
    "check_data": "nndebug.probes.data_checks",
    "revive_dead_neurons": "nndebug.probes.revive",
    "check_dependencies": "nndebug.probes.dependencies",
    "load_run": "nndebug.runfile",
}

__all__ = ["Finding", *_LAZY]


# These three share their name with the submodule that defines them. Importing such a
# submodule (``from nndebug.gradcheck import GradcheckReport``) sets the package attribute
# to the module object, which would hide a lazily loaded function; so they are bound now.
# Their modules import NumPy only (torch is imported by the torch adapter, on demand).
from .gradcheck import gradcheck  # noqa: E402
from .locate import locate  # noqa: E402
from .compare import compare  # noqa: E402


def __getattr__(name):
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'nndebug' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
