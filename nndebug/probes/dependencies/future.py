"""FUTURE_LEAK: a model trained to predict the next position reads that position.

A language model (or any forecaster) trained with targets[:, t] = inputs[:, t + 1] must
compute its output at position t from positions 0..t only. Forget the causal mask, build
it the wrong way round (triu for tril), normalise over the time axis, pad a convolution
on both sides, or run a bidirectional RNN, and the output at t reads the very token it is
asked to predict: the training loss falls towards zero while generation produces rubbish.

How it is seen, on one sample, exactly and for every position at once: a batch of copies
of the sample where copy p has position p changed. For float inputs the gradient of
"output at t of copy t" (a random direction) with respect to the inputs says which
positions the output at t reads; for token ids, the outputs at t < p of copy p must be
bit-for-bit those of the unchanged copy. One forward pass (and one backward) covers all
positions, so a leak from a single position out of 64 is found, never sampled away. The
same batch watched at every module (forward hooks) names the module where the leak first
appears.
"""
import numpy as np

from ...findings import Finding
from .batch import perturbed_rows
from .measure import (RELATIVE_TOLERANCE, describe_place, first_culprit, gradient_mass, relative,
                      row_changes)
from .runner import ModelFailed

MAX_PAIRS_SHOWN = 12
MAX_POSITIONS = 64
"""Longer sequences are probed on their first 64 positions (when the model accepts them
alone): every one of those is checked against every other, at a cost that stays small."""
ATTENTION_TYPES = ("MultiheadAttention", "TransformerEncoderLayer", "TransformerEncoder",
                   "TransformerDecoderLayer", "TransformerDecoder", "Transformer")


def probe_future_leak(runner, batch, rng, sample=0, reason=""):
    """(findings, notes): does the output at position t depend on input positions after t?"""
    if batch.length is None or batch.length < 2:
        return [], ["future leak not checked: the inputs have no sequence dimension (dim 1)"]
    notes = []
    if batch.length > MAX_POSITIONS:
        try:            # a causal mask is structural: the first positions show a leak as well
            return _probe(runner, batch.cropped(MAX_POSITIONS), rng, sample, reason, notes)
        except ModelFailed:
            notes.append(f"the model refused its first {MAX_POSITIONS} positions alone: all "
                         f"{batch.length} were probed")
    return _probe(runner, batch, rng, sample, reason, notes)


def _probe(runner, batch, rng, sample, reason, notes):
    length = batch.length
    rows, changed = _copies(batch, sample, rng)
    copies = batch.rows(rows, primary=changed)
    raw, _ = runner.forward(copies, len(rows), length)     # modules watched only for a leak
    out = positions_first(raw, length)
    if out is None:
        return [], notes + [f"future leak not checked: the output (shape {raw.shape[1:]} per "
                            f"sample) has no position axis matching the inputs' {length} positions"]
    if not rows_are_copies(out):
        return [], notes + ["future leak not checked: two identical copies of a sample got "
                            "different outputs (randomness in the forward pass?)"]
    layouts = (False, True) if _two_position_axes(raw, length) else (False,)
    matrix, method = _fewest_leaks(_perturbation_matrix(_arranged(raw, length, moved), length)
                                   for moved in layouts), "perturbation"
    if batch.is_float:      # exact: a gradient that does not exist is exactly zero
        try:
            matrix, method = _fewest_leaks(
                _gradient_matrix(runner, batch, sample, length, rng, moved)
                for moved in layouts), "gradient"
        except ModelFailed:
            pass            # e.g. a model that only accepts one batch size: perturbation it is
    leaks = _leaks(matrix)
    if not leaks:
        return [], notes
    _, calls = runner.forward(copies, len(rows), length, capture=True)
    where, seen_at, after = _first_leaking_module(calls, length)
    module = dict(runner.work.named_modules()).get(where) if where else None
    kind = runner.work.module_type(module) if module is not None else ""
    place = describe_place(where, kind, seen_at, after)
    first_t = min(t for t, _ in leaks)
    reads = sorted({p for t, p in leaks if t == first_t})
    return [Finding(
        "FUTURE_LEAK", "error", where,
        message=f"the output at position {first_t} reads input position(s) "
                f"{_positions(reads)} after it ({len(leaks)} future (t, p) pairs of "
                f"{length * (length - 1) // 2}) although {reason or 'the task is causal'}; "
                f"the leak is made in {place}",
        evidence={"pairs": [[int(t), int(p)] for t, p in leaks[:MAX_PAIRS_SHOWN]],
                  "n_pairs": len(leaks), "positions": length,
                  "strength": float(max(matrix[t, p] for t, p in leaks)),
                  "method": method, "module": where, "last_clean_module": after,
                  "meaning": "pair [t, p]: the output at position t changes with the input at "
                             "position p > t; strength: relative to its largest dependence"},
        fix=_fix(module, kind, where))], notes


def rows_are_copies(array):
    """Rows 0 and 1 come from the same unchanged sample, so a per-sample layout gives equal rows;
    unequal rows mean the array is not laid out one row per sample (e.g. a (T, E) table)."""
    return float(row_changes(array[0], array[1]).max()) <= RELATIVE_TOLERANCE


def positions_first(array, length):
    """The array with positions on axis 1: (N, T, ...) as is, (N, C, T) (convolution layouts,
    or logits laid out for cross_entropy) with the last axis moved; None when no axis fits."""
    if array is None or array.ndim < 2:
        return None
    if array.shape[1] == length:
        return array
    if array.ndim >= 3 and array.shape[-1] == length:
        return np.moveaxis(array, -1, 1)
    return None


def _two_position_axes(array, length):
    """Whether both axis 1 and the last axis of ``array`` have the inputs' length: (N, T, F)
    and (N, C, T) cannot be told apart by shape. A WaveNet with as many output levels as
    the positions it was trained on (16 and 16, real-bug batch 308) read along its levels
    showed every output reading every position."""
    return array is not None and array.ndim >= 3 and array.shape[1] == length == array.shape[-1]


def _arranged(array, length, moved):
    """``array`` with positions on axis 1: its last axis moved there when ``moved``."""
    return np.moveaxis(array, -1, 1) if moved else positions_first(array, length)


def _fewest_leaks(matrices):
    """Of the dependence matrices of the layouts an output may have, the one with the fewest
    future pairs: read along the wrong axis, a causal model's output seems to read
    everything; read along the right one, a leaking model leaks in both readings."""
    return min(matrices, key=lambda matrix: len(_leaks(matrix)))


def _copies(batch, sample, rng):
    """Rows: the sample unchanged, an unchanged control, then one copy per position p with
    position p changed."""
    length = batch.length
    rows = [sample] * (length + 2)
    changed = perturbed_rows(batch.x, rows, {2 + p: p for p in range(length)}, rng,
                             per_column=batch.ids_per_column)
    return rows, changed


def _perturbation_matrix(out, length):
    """M[t, p]: how much the output at t moved when position p changed."""
    base = out[0]
    return np.stack([row_changes(base, out[2 + p]) for p in range(length)], axis=1)


def _gradient_matrix(runner, batch, sample, length, rng, moved=False):
    """M[t, p]: size of d(output at t . random direction)/d(input at p), one backward pass on
    ``length`` copies of the sample (copy t carries the direction at its position t).
    ``moved``: the output's positions are on its last axis (``_two_position_axes``)."""
    tree = batch.rows([sample] * length)
    out, _ = runner.forward(tree, length, length)
    cotangent = np.zeros_like(out)
    arranged = _arranged(cotangent, length, moved)     # a view: writes land in cotangent
    for t in range(length):
        arranged[t, t] = rng.normal(size=arranged[t, t].shape)
    grad = runner.input_gradient(tree, batch.primary, cotangent)
    return relative(gradient_mass(grad, 1))


def _leaks(matrix):
    length = matrix.shape[0]
    return [(t, p) for t in range(length) for p in range(t + 1, length)
            if matrix[t, p] > RELATIVE_TOLERANCE]


def _first_leaking_module(calls, length):
    """(where the leak is made, the module whose output first shows it, the last clean one)."""
    def shows(c, which):
        array = positions_first(getattr(calls[c], which), length)
        if array is None or not rows_are_copies(array):
            return None           # no position axis (or no sample axis) to read
        return bool(_leaks(_perturbation_matrix(array, length)))
    return first_culprit(calls, shows)


def _positions(positions):
    shown = ", ".join(str(p) for p in positions[:6])
    return shown + (" ..." if len(positions) > 6 else "")


def _fix(module, kind, where):
    if kind in ATTENTION_TYPES:
        return (f"give '{where}' a causal mask: attn_mask=nn.Transformer."
                "generate_square_subsequent_mask(T) (or a boolean torch.triu(torch.ones(T, T), 1) "
                "mask, True = hidden), or is_causal=True together with that mask")
    inside = f"in the forward of '{where}'" if where else "in the model's forward"
    return (f"{inside}: mask the attention scores above the diagonal before the softmax "
            "(scores.masked_fill(torch.triu(ones(T, T), 1).bool(), -inf): tril keeps, triu hides), "
            "slice the mask to the current length, and keep normalisation, convolution padding "
            "(left only) and RNNs (not bidirectional) from reading later positions")
