"""Labels handed to the model whole and shifted inside its forward: no TARGETS_IN_INPUTS.

An encoder-decoder is often called as ``model(source, targets)``, its forward building the
decoder's input itself - a start token, then ``targets[:, :-1]`` - as Hugging Face models
do with ``labels``. The targets then sit among the inputs at offset 0, which reads, from the
arrays alone, exactly like a decoder fed its own labels (the bug: ``decoder_input =
targets``). Only the model tells them apart: a decoder that shifts inside computes its
output at position t from input positions before t; one fed its labels reads position t
itself.

How it is seen: copies of one sample, copy p with position p of that input changed (the
future-leak probe's batch), one forward pass; the output at t must not move for any p >= t.

The same holds for a loop that scores each step's output on its own, as the character-level
tutorials do: ``loss += criterion(output[:, t], tokens[:, t + 1])`` for t in 0..T-1. The loss
is handed one target column at a time, and the first, the one a monitor records, is input
column 1: an exact copy of an input column, which is what a label left among the features
looks like. It is the next token of output 0, and a causal model's output 0 has not read it
(real-bug batch 236: a char-RNN twin drew TARGETS_IN_INPUTS). A bidirectional model's output
0 has read it, and there the copy stays named.
"""
from .future import MAX_POSITIONS, _copies, _perturbation_matrix, positions_first, \
    rows_are_copies
from .measure import RELATIVE_TOLERANCE
from .runner import ModelFailed

NEXT_COLUMN = 1   # [convention] the next token of output 0: the first target of a loop that
                  # scores output t against input t + 1 step by step (the one recorded)


def reads_own_position(runner, batch, rng, sample=0):
    """True when some output position t reads input position t or a later one (of
    ``batch.primary``); False when every output reads only positions before it; None when
    the model's outputs cannot be laid out by position (or it refuses the copies)."""
    return reads_from(runner, batch, rng, 0, sample)


def reads_later_position(runner, batch, rng, sample=0):
    """True when some output position t reads an input position after t; False when the
    model is causal (every output reads t and before); None as ``reads_own_position``."""
    return reads_from(runner, batch, rng, 1, sample)


def reads_from(runner, batch, rng, ahead, sample=0):
    """Whether some output position t reads input position t + ``ahead`` or a later one."""
    if batch.length is None or batch.length < 2:
        return None
    if batch.length > MAX_POSITIONS:
        batch = batch.cropped(MAX_POSITIONS)
    rows, changed = _copies(batch, sample, rng)
    try:
        raw, _ = runner.forward(batch.rows(rows, primary=changed), len(rows), batch.length)
    except ModelFailed:
        return None
    out = positions_first(raw, batch.length)
    if out is None or not rows_are_copies(out):
        return None
    matrix = _perturbation_matrix(out, batch.length)     # [t, p]: output t moved with p
    length = batch.length
    return any(matrix[t, p] > RELATIVE_TOLERANCE for t in range(length)
               for p in range(t + ahead, length))


def drop_if_shifted_inside(runner, sequence, rng, findings, offset, notes):
    """(findings, offset) with an offset-0 TARGETS_IN_INPUTS left out, and the offset read as
    1, when the model shifts that input itself (``reads_own_position`` is False)."""
    copies = [f for f in findings if f.code == "TARGETS_IN_INPUTS" and
              f.evidence.get("offset") == 0 and "share" in f.evidence]
    if not copies or reads_own_position(runner, sequence, rng) is not False:
        return findings, offset
    notes.append("the targets are among the inputs unshifted, but the model's output at each "
                 "position reads only the positions before it: they are shifted inside its "
                 "forward (a decoder input built from the labels), not copied")
    return [f for f in findings if f not in copies], 1


def drop_if_next_column(runner, sequence, rng, findings, notes):
    """Findings without a TARGETS_IN_INPUTS whose one target per sample is input column 1 of
    a token sequence (integer ids, one row per sample) read by a causal model: the first
    target of a loop that scores output t against token t + 1, one step at a time."""
    x = sequence.x
    copies = [f for f in findings if f.code == "TARGETS_IN_INPUTS" and
              list(f.evidence.get("columns", ()))[:1] == [NEXT_COLUMN]]
    if not copies or x is None or x.ndim != 2 or x.dtype.kind not in "iu" or \
            reads_later_position(runner, sequence, rng) is not False:
        return findings
    notes.append(f"the targets are input column {NEXT_COLUMN} of the token sequence, and the "
                 "model is causal (no output reads a later position): the loop scores each "
                 "step's output against the next token, one step at a time, not a copy")
    return [f for f in findings if f not in copies]
