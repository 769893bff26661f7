"""What a planted bug is, and the helpers the bug files use to describe one.

A bug is a faulty ``backward`` a learner could really have written: it returns
gradients of the right *shape* (so the engine's shape check passes and nothing
crashes), but with the wrong *values*. Each comes with a lesson (the correct
derivative, what the bug does, why nothing crashes), the symptom a learner sees
in training, and a tiny example computation on which the bug changes the
gradients - the tests run every example, so a new bug is tested the moment it
is defined.
"""
import dataclasses
import textwrap
from typing import Callable

import numpy as np

ENGINE = "engine"
"""The ``op`` of bugs that live in the autograd engine rather than in one primitive."""


@dataclasses.dataclass(frozen=True)
class Bug:
    """One named, plantable backward bug.

    ``op`` is the ``minigrad.ops.REGISTRY`` name whose backward the bug
    replaces, or ``"engine"`` for a bug in the engine itself (then ``backward``
    is a faulty ``minigrad.autograd.accumulate``). ``example(rng)`` returns
    ``(leaves, forward)``: a dict of float64 leaf tensors that require grad and
    a function computing an output from them through ``op``, on which the bug
    changes the gradients.
    """

    name: str
    op: str
    summary: str
    lesson: str
    symptom: str = ""
    family: str = ""
    backward: Callable = dataclasses.field(default=None, repr=False, compare=False)
    example: Callable = dataclasses.field(default=None, repr=False, compare=False)


_DEFINED = []


def define(name, op, family, summary, symptom, lesson, example):
    """Decorator: turn a faulty backward function into a ``Bug`` of the catalogue.

    The texts are written as indented triple-quoted strings in the bug files;
    they are dedented and stripped here so the terminal shows them cleanly.
    """
    def decorate(faulty_backward):
        bug = Bug(name=name, op=op, summary=" ".join(summary.split()),
                  lesson=textwrap.dedent(lesson).strip(), symptom=" ".join(symptom.split()),
                  family=family, backward=faulty_backward, example=example)
        if any(existing.name == name for existing in _DEFINED):
            raise ValueError(f"two bugs are named {name!r}; bug names must be unique")
        _DEFINED.append(bug)
        return faulty_backward
    return decorate


def defined_bugs():
    """Every bug defined so far, in definition order (available or not)."""
    return list(_DEFINED)


# --- helpers for the examples ------------------------------------------------

def leaf(rng, shape, low=-2.0, high=2.0, away_from_zero=0.0):
    """A float64 leaf tensor needing grad, uniform in [low, high).

    ``away_from_zero`` pushes values off a kink (ReLU at 0, |x| at 0) so that
    finite differences and the analytical gradient are both well defined.
    """
    from ..tensor import Tensor

    values = rng.uniform(low, high, size=shape)
    if away_from_zero:
        values = np.where(values >= 0, values + away_from_zero, values - away_from_zero)
    return Tensor(values, requires_grad=True, dtype=np.float64)


def constant(values, dtype=None):
    """A tensor that needs no gradient (targets, masks, indices)."""
    from ..tensor import Tensor

    return Tensor(np.asarray(values), dtype=dtype)


def size(rng, low, high):
    """A random size in [low, high] so each example seed tries a different shape."""
    return int(rng.integers(low, high + 1))
