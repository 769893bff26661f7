"""Turning two runs of the model into "depends" or "does not depend".

The probes run on a float64 copy. Changing one sample (or position) of the input leaves
every output that does not depend on it bit-for-bit the same: a row of a matrix product
never reads the values of other rows, a masked attention weight is exactly zero. So a
change far below float64 rounding, relative to the output's size, already means "no
dependence"; anything above it is a real path from that input to that output.
"""
import numpy as np

RELATIVE_TOLERANCE = 1e-9
"""A change in an output counts as a dependence when it exceeds this fraction of the
output's largest magnitude (float64 rounding is ~1e-16; real dependences, even through a
-1e4 attention mask, are far above 1e-9 or exactly zero)."""


def scale_of(array):
    """The size changes are measured against (never zero)."""
    biggest = float(np.max(np.abs(array))) if array.size else 0.0
    return biggest if biggest > 0 else 1.0


def row_changes(base, changed, axis_rows=0):
    """max |changed - base| per row (per sample, or per position with ``axis_rows=1``),
    relative to the base's scale. Outputs whose length follows the batch's longest sample
    (``pad_packed_sequence`` trims to it) are compared where both runs have them."""
    base, changed = common_part(np.asarray(base, np.float64), np.asarray(changed, np.float64))
    diff = np.abs(changed - base)
    moved = np.moveaxis(diff, axis_rows, 0).reshape(diff.shape[axis_rows], -1)
    return moved.max(axis=1) / scale_of(base) if moved.size else np.zeros(diff.shape[axis_rows])


def common_part(a, b):
    """``a`` and ``b`` cut to the shape both have (as they are when it is the same): a sample
    changed into a longer one makes the whole batch's output longer, and the positions only
    the longer run has say nothing about what depends on what."""
    if a.shape == b.shape or a.ndim != b.ndim or a.ndim == 0 or a.shape[0] != b.shape[0]:
        return a, b
    common = tuple(slice(0, min(m, n)) for m, n in zip(a.shape, b.shape))
    return a[common], b[common]


def gradient_mass(grad, axis):
    """sum |grad| over everything but ``axis`` (and the leading sample axis when axis > 0)."""
    g = np.abs(np.asarray(grad, np.float64))
    keep = (0, axis) if axis else (0,)
    other = tuple(a for a in range(g.ndim) if a not in keep)
    return g.sum(axis=other) if other else g


def relative(matrix):
    """Each row divided by its largest entry (rows of zeros stay zero)."""
    matrix = np.asarray(matrix, np.float64)
    peak = matrix.max(axis=1, keepdims=True)
    return np.divide(matrix, peak, out=np.zeros_like(matrix), where=peak > 0)


def parent_of(name):
    """The module whose forward calls ``name`` ("" is the model itself)."""
    return name.rsplit(".", 1)[0] if "." in name else ""


def first_culprit(calls, shows):
    """Where a dependence first appears, from the recorded module calls.

    ``shows(c, which)`` says whether call number ``c``'s "input" or "output" shows the
    dependence (None: its layout cannot tell; such a call is neither culprit nor clean).
    Returns (where, seen_at, last_clean): ``seen_at`` is the first module whose output
    shows it; if that module's input already showed it, the dependence was made by the code
    around it, in its parent's forward (``where`` = the parent), else by the
    module itself (``where`` = ``seen_at``). ("", "", last clean) when no module output
    shows it: it is made in the model's own forward, after the last clean module.
    """
    clean = ""
    for c, call in enumerate(calls):
        if call.output is None:
            continue
        seen = shows(c, "output")
        if seen:
            made_before = call.input is not None and bool(shows(c, "input"))
            return (parent_of(call.name) if made_before else call.name), call.name, clean
        if seen is not None:
            clean = call.name
    return "", "", clean


def describe_place(where, kind, seen_at, after):
    """Where a dependence is made, in words."""
    if seen_at and seen_at != where:
        return (f"the forward of '{where or 'the model'}', before '{seen_at}'"
                + (f" (after '{after}')" if after else ""))
    if where:
        return f"module '{where}' ({kind})"
    return "the model's own forward" + (f", after '{after}'" if after else "")
