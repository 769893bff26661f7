"""Does a document packed into a row read the documents packed before it
(ATTENTION_CROSSES_DOCUMENTS, ``nndebug.rules.packed_documents``)?

Packing puts several short documents back to back in one row, so that no position is
wasted on padding. Position ids that restart at 0 where each document starts say the
documents are separate - but they only restart the position embedding. Unless the
attention mask is block-diagonal too (each document attends within itself), every
document reads the ones before it: where those are related or repeated, the model learns
to copy from them and the training loss hides that it cannot predict a document alone
(alex-hh/profam#495, huggingface/nanoVLM#204).

The restarts are read from the first training call's inputs: a tensor of the token ids'
shape whose rows count 0, 1, 2, ... and start again at 0 inside the row (position ids per
document). Then the tokens before each row's first restart are moved one place on (a row
of one repeated token is left out), the call run again on a private copy
(``token_reruns.py``), and the outputs at and after the restart compared: they must not
move. Kept as
``run.observed.cross_document_reads``: ``[(step, rows with a restart, of them rows whose
later document moved, largest change relative to the output's scale)]``, a row only when
some later document moved.
"""
import numpy as np

CROSS_DOCUMENT_TOLERANCE = 1e-6   # [design] float64 outputs that moved less than this
                                  # (relative to their largest magnitude) did not move


def restart_columns(positions):
    """Each row's first restart (the column where a count 0, 1, 2, ... starts again at 0),
    or -1; None when ``positions`` are not such counts (they must start at 0 and go up by
    one between restarts, and restart in some row)."""
    if positions.ndim != 2 or positions.dtype.kind not in "iu" or positions.shape[1] < 3:
        return None
    if not np.all(positions[:, 0] == 0):
        return None
    steps = np.diff(positions, axis=1)
    restarts = positions[:, 1:] == 0
    if not np.all((steps == 1) | restarts) or not restarts.any():
        return None
    return np.where(restarts.any(axis=1), restarts.argmax(axis=1) + 1, -1)


def read_cross_document(call, step, observed, on_error):
    """Run the check on the kept call (``token_reruns.FirstTokenCall``) and keep its row."""
    try:
        row = cross_document_row(call)
        if row is not None:
            observed.cross_document_reads = [(-1 if step is None else int(step), *row)]
    except Exception as error:            # a model the copy cannot run: nothing to say
        on_error(error)


def cross_document_row(call):
    """(rows with a restart, rows whose later document moved, relative change), or None."""
    ids = call.token_ids()
    if ids is None:
        return None
    first = None
    for other in call.other_tensors().values():
        first = restart_columns(other)
        if first is not None:
            break
    if first is None:
        return None
    packed = np.flatnonzero(first > 0)
    edited = ids.copy()
    for row in packed:            # the first document's tokens move one place on
        edited[row, :first[row]] = np.roll(ids[row, :first[row]], 1)
    packed = [row for row in packed if not np.array_equal(edited[row], ids[row])]
    if not packed:
        return None
    outputs = call.rerun([ids, edited])
    if outputs is None:
        return None
    plain, moved = outputs
    if plain is None or moved is None or plain.shape != moved.shape or \
            plain.ndim < 2 or plain.shape[1] != ids.shape[1]:
        return None                       # no output per position to compare
    scale = float(np.abs(plain).max())
    if scale == 0 or not np.isfinite(scale):
        return None
    changes = [float(np.abs(moved[row, first[row]:] - plain[row, first[row]:]).max()) / scale
               for row in packed]
    crossed = sum(change > CROSS_DOCUMENT_TOLERANCE for change in changes)
    if not crossed:
        return None
    return int(len(packed)), int(crossed), max(changes)
