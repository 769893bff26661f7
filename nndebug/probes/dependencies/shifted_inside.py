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
"""
from .future import MAX_POSITIONS, _copies, _perturbation_matrix, positions_first, \
    rows_are_copies
from .measure import RELATIVE_TOLERANCE
from .runner import ModelFailed


def reads_own_position(runner, batch, rng, sample=0):
    """True when some output position t reads input position t or a later one (of
    ``batch.primary``); False when every output reads only positions before it; None when
    the model's outputs cannot be laid out by position (or it refuses the copies)."""
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
               for p in range(t, length))


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
