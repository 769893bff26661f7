"""Token targets equal to the inputs: a copy nobody meant, or a reconstruction?

The alignment reading (``alignment.py``) names token targets equal to the inputs at the
same positions TARGETS_IN_INPUTS: a language model trained on unshifted labels reads the
token it is scored on at its own position and learns to copy it. A sequence autoencoder is
scored the same way on purpose - a SMILES VAE, a text autoencoder: the encoder squeezes
the whole sequence into a code, and a teacher-forced decoder rebuilds it from that code
and the tokens before each position (real-bug batch 320's GRU autoencoder, whose healthy
twin was told TARGETS_IN_INPUTS).

Told apart by what each output reads most: a copy changes most with the token at its own
position (an embedding handed straight on, a residual stream, an RNN's input at that
step); a reconstruction reads its own token only through the code, so another position -
the decoder's input, the previous token - moves it more. One sample, every position
changed in one batch of copies (the future-leak probe's batch, ``future.py``).
"""
import numpy as np

from .future import _copies, _perturbation_matrix, positions_first, rows_are_copies
from .measure import RELATIVE_TOLERANCE
from .runner import ModelFailed

OWN_STRONGEST_MIN = 0.5
"""[design] the copy is named when, at half the positions or more, the output moves most with
its own position's token: an unshifted language model does so at (nearly) every position; a
teacher-forced decoder reads its previous token first at every one."""


def reads_own_token_most(runner, batch, rng, sample=0):
    """(share of positions whose output moves most with its own token, or None when the
    output has no position axis or is not one row per sample)."""
    length = batch.length
    if length is None or length < 2:
        return None
    rows, changed = _copies(batch, sample, rng)
    raw, _ = runner.forward(batch.rows(rows, primary=changed), len(rows), length)
    out = positions_first(raw, length)
    if out is None or not rows_are_copies(out):
        return None
    moved = _perturbation_matrix(out, length)          # moved[t, p]
    read = [t for t in range(length) if moved[t].max() > RELATIVE_TOLERANCE]
    if not read:
        return None
    own = [t for t in read if moved[t, t] >= np.max(np.delete(moved[t], t))]
    return len(own) / len(read)


def is_reconstruction(runner, batch, rng):
    """True when the outputs read their own tokens less than other positions' (see the
    module doc): targets equal to the inputs are then a reconstruction's."""
    share = reads_own_token_most(runner, batch, rng)
    return share is not None and share < OWN_STRONGEST_MIN


def drop_if_reconstruction(runner, sequence, rng, findings, notes, told):
    """``findings`` without the same-position TARGETS_IN_INPUTS of token ids when the model
    reconstructs rather than copies (a note says so). ``told``: the caller gave ``causal``
    or ``task_offset``, which settles the task: nothing is dropped then."""
    copy = [f for f in findings if f.code == "TARGETS_IN_INPUTS" and
            (f.evidence or {}).get("offset") == 0]
    if told or not copy or sequence.is_float:
        return findings
    try:
        reconstruction = is_reconstruction(runner, sequence, rng)
    except ModelFailed:
        return findings
    if not reconstruction:
        return findings
    notes.append("targets equal to the inputs at the same positions read as a reconstruction: "
                 "each output moves more with other positions' tokens than with its own (an "
                 "autoencoder's code and a teacher-forced decoder), not a copy")
    return [f for f in findings if f not in copy]
