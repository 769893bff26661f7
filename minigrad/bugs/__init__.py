"""The catalogue of planted backward bugs: learn backpropagation by breaking it.

Each bug is a faulty backward a learner could really have written. It keeps
every gradient's shape, so nothing crashes - the loss still goes down, just
not the way it should. Plant one, train, and try to find it::

    import minigrad as mg
    for bug in mg.bugs.catalogue():
        print(bug.name, bug.op, bug.summary)

    with mg.bugs.plant("tanh_not_squared"):
        loss.backward()          # tanh's backward is now the faulty one
    # here the correct backward is back, the very same object as before

``plant`` swaps ``REGISTRY[op].backward`` (the engine looks every primitive's
backward up there at backward time), or, for ``op == "engine"`` bugs,
``minigrad.autograd.accumulate``; it always puts the original back on exit,
also when the block raises and when plants are nested.
"""
import contextlib
import difflib

from .. import autograd
from ..ops.registry import REGISTRY
from .base import ENGINE, Bug, defined_bugs

# Import order is catalogue order; the linear-algebra file comes first so the
# first bug is on matmul, a primitive every network uses.
from . import linear_bugs, elementwise_bugs, activation_bugs, reduce_bugs  # noqa: E402,F401
from . import layer_bugs, loss_bugs, sequence_bugs, engine_bugs  # noqa: E402,F401

__all__ = ["Bug", "ENGINE", "UnknownBugError", "catalogue", "get", "plant", "names"]


class UnknownBugError(KeyError, ValueError):
    """A bug name that is not in the catalogue (a KeyError and a ValueError)."""

    def __str__(self):  # KeyError would show the message in quotes
        return str(self.args[0]) if self.args else ""


def is_available(bug):
    """Whether this minigrad has the primitive the bug plants into."""
    return bug.op == ENGINE or bug.op in REGISTRY


def catalogue():
    """Every bug that can be planted in this minigrad, as a list of ``Bug``.

    Bugs on a primitive that is not registered are left out, so every entry
    can be planted.
    """
    return [bug for bug in defined_bugs() if is_available(bug)]


def names():
    """The names of ``catalogue()``, in order."""
    return [bug.name for bug in catalogue()]


def get(name):
    """The ``Bug`` called ``name``; an ``UnknownBugError`` naming the valid ones otherwise."""
    if isinstance(name, Bug):
        name = name.name
    for bug in catalogue():
        if bug.name == name:
            return bug
    valid = names()
    for bug in defined_bugs():
        if bug.name == name:  # defined, but its primitive is missing from this minigrad
            raise UnknownBugError(f"bug {name!r} plants into the primitive {bug.op!r}, which is not "
                                  "in minigrad.ops.REGISTRY here; available bugs: "
                                  f"{', '.join(valid)}")
    close = difflib.get_close_matches(str(name), valid, n=3, cutoff=0.5)
    hint = f"did you mean {' or '.join(repr(c) for c in close)}? " if close else ""
    raise UnknownBugError(f"no planted bug named {name!r}; {hint}valid names: {', '.join(valid)} "
                          "(see minigrad.bugs.catalogue())")


def _target(bug):
    """The object and attribute name the bug replaces, and the value to put there."""
    if bug.op == ENGINE:
        return autograd, "accumulate", bug.backward
    return REGISTRY[bug.op], "backward", staticmethod(bug.backward)


@contextlib.contextmanager
def plant(name):
    """Swap the faulty backward of bug ``name`` in for the duration of the block.

    Yields the ``Bug``. On exit - normal or by exception - the exact original
    attribute object is put back (or removed again if the class only inherited
    it). Nested plants restore in reverse order, so after the outermost block
    everything is as it was.
    """
    bug = get(name)
    owner, attribute, faulty = _target(bug)
    own = vars(owner)
    had_own = attribute in own
    original = own.get(attribute)
    setattr(owner, attribute, faulty)
    try:
        yield bug
    finally:
        if had_own:
            setattr(owner, attribute, original)
        else:
            delattr(owner, attribute)
