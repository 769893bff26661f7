"""PADDING_LEAK: the outputs at real positions read the padded positions.

Sequences of different lengths share a batch by padding the short ones. The padded
positions hold nothing: a model must hide them (an attention mask, a masked pooling), or a
sentence's features change with how much it was padded - with the batch it happened to be
in. Forgetting the mask (or passing it with the wrong polarity) trains fine and silently.

Where the padding is: a mask among the inputs (a boolean array, True = padding, like
``key_padding_mask``; or 0/1 integers, 0 = padding, like ``attention_mask``; either
polarity is accepted when it is the one that marks positions holding a single constant
value at one end of each sequence - and when both do, the one whose positions hold zeros),
or, without a mask, the ``padding_idx`` of the
embedding that reads the token ids.

How it is seen: one sample with both real and padded positions is run twice side by side;
in the second copy only the *content* of its padded positions is changed - the embedding's
output there for token ids (so "is this padding" stays the same wherever the model computes
it), the values for float inputs. The outputs at the real positions must not move.
"""
import numpy as np

from ...findings import Finding
from .batch import array_leaves
from .future import positions_first, rows_are_copies
from .measure import RELATIVE_TOLERANCE, describe_place, first_culprit, row_changes
from .runner import ModelFailed


def find_padding(runner, batch):
    """(padded: bool array (B, T), how it was found) or None."""
    x = batch.x
    if x.ndim < 2:
        return None
    shape = x.shape[:2]
    names = _leaf_names(batch.tree)
    for i, a in enumerate(array_leaves(batch.tree)):
        if i == batch.primary or i not in batch.per_sample or a.shape != shape:
            continue
        if "type" in names.get(i, "") or a.dtype.kind not in "biu":
            continue
        if a.dtype.kind != "b" and not set(np.unique(a).tolist()) <= {0, 1}:
            continue
        polarities = [(a.astype(bool), "True = padding"), (~a.astype(bool), "0 = padding")]
        if a.dtype.kind != "b":
            polarities.reverse()
        fits = [(padded, meaning) for padded, meaning in polarities
                if _looks_like_padding(x, padded)]
        if fits:
            # both polarities fit when the real positions hold one constant value too (graph
            # nodes given a constant feature of 1, real-bug batch 253): padding is the side
            # whose content is zero
            padded, meaning = next((f for f in fits if not np.any(x[f[0]])), fits[0])
            return padded, f"the mask input {names.get(i, f'#{i}')} ({meaning})"
    if x.dtype.kind in "iu":
        for name, module in runner.work.named_modules():
            index = getattr(module, "padding_idx", None)
            if index is not None and "Embedding" in runner.work.module_type(module):
                padded = x == index
                if _looks_like_padding(x, padded):
                    return padded, f"token id {index} (padding_idx of '{name}')"
    return None


def probe_padding(runner, batch, rng):
    """(findings, notes)."""
    found = find_padding(runner, batch)
    if found is None:
        return [], []
    padded, how = found
    sample = int(np.flatnonzero(padded.any(axis=1) & ~padded.all(axis=1))[0])
    hidden, real = padded[sample], ~padded[sample]
    length = batch.length
    x = batch.x[[sample] * 3].copy()
    edit = None
    if batch.is_float:
        x[2][hidden] = x[2][hidden] + rng.normal(0.0, float(np.std(batch.x)) or 1.0,
                                                 size=x[2][hidden].shape)
    else:
        edit = _embedding_edit(runner, hidden, length, rng)
    try:
        out, calls = runner.forward_edited(batch.rows([sample] * 3, primary=x), 3, length, edit) \
            if edit is not None else runner.forward(batch.rows([sample] * 3, primary=x), 3, length,
                                                    capture=True)
    except ModelFailed:
        return [], ["padding not checked: the model would not run on one sample at a time"]
    if edit is not None and not edit.done:
        return [], ["padding not checked: no embedding reads the token ids"]
    moved = _real_change(out, length, real)
    if moved is None or moved <= max(RELATIVE_TOLERANCE, 100 * _real_change_control(out, length)):
        return [], []

    def shows(c, which):
        array = getattr(calls[c], which)
        change = None if array is None else _real_change(array, length, real)
        return None if change is None else change > RELATIVE_TOLERANCE
    where, seen_at, after = first_culprit(calls, shows)
    module = dict(runner.work.named_modules()).get(where) if where else None
    kind = runner.work.module_type(module) if module is not None else ""
    return [Finding(
        "PADDING_LEAK", "error", where,
        message=f"the outputs at real positions change with the content of padded positions "
                f"(sample {sample}: {int(hidden.sum())} of {length} positions padded, found from "
                f"{how}; change {moved:.2g} relative): the padding is read, not hidden; made in "
                f"{describe_place(where, kind, seen_at, after)}",
        evidence={"sample": sample, "padded_positions": [int(p) for p in np.flatnonzero(hidden)],
                  "found_from": how, "strength": moved, "module": where, "seen_at": seen_at,
                  "last_clean_module": after},
        fix="hide the padding: pass the mask to attention (key_padding_mask, True = padding; or "
            "attention_mask, 0 = padding - check the polarity) and leave padded positions out of "
            "pooling (a masked mean)")], []


class _EmbeddingEdit:
    """A forward hook: where an embedding reads the (3, T) token ids, change its output at the
    padded positions of copy 2 only."""

    def __init__(self, runner, hidden, length, rng):
        self.work, self.hidden, self.length, self.rng = runner.work, hidden, length, rng
        self.done = False

    def __call__(self, module, args, output):
        if self.done or "Embedding" not in self.work.module_type(module) or not args:
            return
        ids = self.work.to_numpy(args[0])
        if ids.dtype.kind not in "iu" or ids.shape[:2] != (3, self.length):
            return
        values = self.work.to_numpy(output)
        scale = float(np.std(values)) or 1.0
        values[2][self.hidden] += self.rng.normal(0.0, scale, size=values[2][self.hidden].shape)
        self.work.set_parameter(output, values)
        self.done = True


def _embedding_edit(runner, hidden, length, rng):
    return _EmbeddingEdit(runner, hidden, length, rng)


def _real_change(array, length, real):
    """Largest change between copies 0 and 2 at the real positions (or anywhere, for an output
    without a position axis), relative to copy 0's size; None without a sample axis."""
    if array is None or array.shape[0] != 3 or not rows_are_copies(array):
        return None
    arranged = positions_first(array, length)
    if arranged is None:
        return float(row_changes(array[0:1], array[2:3]).max())
    return float(row_changes(arranged[0], arranged[2])[real].max())


def _real_change_control(array, length):
    return float(row_changes(array[0:1], array[1:2]).max())


def _looks_like_padding(x, padded):
    """Padding: some rows mixed, each padded run at one end of its row, one constant content."""
    mixed = padded.any(axis=1) & ~padded.all(axis=1)
    if not mixed.any():
        return False
    for row in padded[mixed]:
        where = np.flatnonzero(row)
        contiguous = where[-1] - where[0] + 1 == where.size
        if not contiguous or (where[0] != 0 and where[-1] != row.size - 1):
            return False
    content = x[padded]
    return bool(np.all(content == content[0]))


def _leaf_names(tree, prefix=""):
    """{leaf index: dict key} for inputs given as a dict (names tell a mask from token types)."""
    names, counter = {}, [0]

    def walk(value, name):
        if isinstance(value, np.ndarray):
            names[counter[0]] = name
            counter[0] += 1
        elif isinstance(value, (tuple, list)):
            for v in value:
                walk(v, name)
        elif isinstance(value, dict):
            for k, v in value.items():
                walk(v, str(k))
    walk(tree, prefix)
    return names
