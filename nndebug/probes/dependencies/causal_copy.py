"""TARGETS_IN_INPUTS for measurements: a causal sequence model scored on the input it was
just given.

Float targets equal to the inputs at the same positions are usually an autoencoder's, and
healthy: the model squeezes the window through a bottleneck (an encoder's last state, a
code) and rebuilds it, so each output reads the whole window; or it rebuilds each frame
from that frame alone. A forecaster that reads positions 0..t step by step (an LSTM, a
causal convolution) and is scored against the input AT t is neither: the value it must
output is in its own input, one step back along no path at all, and it learns to repeat
it. Rolled out over the future it stands still (quancore/social-lstm#11,
``loss(outputs, x_seq)`` where ``outputs[:, :-1]`` against ``x_seq[:, 1:]`` was meant).

How it is seen: the gradient dependence matrix of the future-leak probe (``future.py``:
M[t, p], how much the output at t reads input position p, one backward pass on one sample's
copies). The model is a forecaster's when no output reads a later position (causal) and
most outputs read earlier ones (it carries history); a per-frame model reads neither, an
autoencoder of the window reads ahead.
"""
from ...findings import Finding
from .future import MAX_POSITIONS, _gradient_matrix
from .measure import RELATIVE_TOLERANCE
from .runner import ModelFailed

READS_HISTORY = 0.5
"""[design] Share of the positions after the first whose output reads an earlier position:
a recurrent or causal-convolution model reads them at every position; a model of single
frames at none."""


def probe_causal_copy(runner, batch, rng, sample=0):
    """(findings, notes) for float targets equal to the inputs at the same positions."""
    if batch.length is None or batch.length < 3:
        return [], []
    if batch.length > MAX_POSITIONS:
        try:         # causality is structural: the first positions show it as well
            return _probe(runner, batch.cropped(MAX_POSITIONS), rng, sample)
        except ModelFailed:
            pass
    return _probe(runner, batch, rng, sample)


def _probe(runner, batch, rng, sample):
    length = batch.length
    matrix = _gradient_matrix(runner, batch, sample, length, rng)
    ahead = any(matrix[t, p] > RELATIVE_TOLERANCE
                for t in range(length) for p in range(t + 1, length))
    if ahead:
        return [], []          # an output reads later positions: an autoencoder of the window
    history = sum(1 for t in range(1, length) if matrix[t, :t].max() > RELATIVE_TOLERANCE)
    share = history / (length - 1)
    if share < READS_HISTORY:
        return [], []          # each frame from itself: a per-frame autoencoder
    return [Finding(
        "TARGETS_IN_INPUTS", "error", "",
        message=f"the target of each position is the input at that same position, and the "
                f"model is causal and reads the positions before it ({share:.0%} of positions): "
                "a forecaster scored on the value it was just given learns to repeat it, and "
                "rolled out over the future it stands still",
        evidence={"positions": length, "reads_history": share, "reads_ahead": False,
                  "meaning": "targets[:, t] == inputs[:, t]; no output reads a later position, "
                             "reads_history of them read an earlier one"},
        fix="score output t against the next position: loss(outputs[:, :-1], inputs[:, 1:]) "
            "(or shift the targets once in the data); if reconstructing the window is the task, "
            "give the model a bottleneck that sees the whole window before it rebuilds it")], []
