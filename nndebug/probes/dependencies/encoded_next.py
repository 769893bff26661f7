"""Targets written into the next input: the task is causal although no target equals an input.

The future-leak probe runs when the model must not read ahead, which the alignment reading
(``alignment.py``) learns from targets equal to the next inputs (a language model's
``targets[:, t] == inputs[:, t + 1]``). A knowledge tracer's inputs are interaction ids that
encode an answer with its question (``skill + n_skills * correct``), and its targets are the
next answers, 0 or 1: no target equals an input, yet each one is written into the input one
position later. A tracer whose attention mask does nothing (``scores.masked_fill(...)`` with
its result thrown away, real-bug batch 321) reads that input and copies the answer, and the
probe never ran.

Seen here from the data alone: pairing each target with the input one position later, every
input id goes with one target value (the target is a function of the next input), while the
input at the target's own position does not determine it. A tagger, whose tags follow from
the token at their own position, is left out by the second test.
"""
import numpy as np

from .alignment import _whole_numbers_as_ids

DETERMINED = 0.99
"""[design] share of (next input, target) pairs that agree with their input id's most common
target: a code that holds the answer gives 1.0; an input merely correlated with the next
target (a question's difficulty) stays far lower."""
OWN_POSITION_MAX = 0.9
"""[design] the input at the target's own position must determine it less: a per-token tag
read from its own token is a tagger's task, not a next-step one."""
MIN_PAIRS = 32               # [design] pairs read before a verdict
MIN_IDS = 3                  # [design] distinct input ids: a vocabulary, not a flag
MIN_PAIRS_PER_ID = 4         # [design] ids seen once each determine anything: no evidence
MAX_TARGET_SHARE = 0.9       # [design] a target (nearly) constant is determined by everything


def targets_in_next_inputs(x, y, ignore_index=-100):
    """True when the targets at t are a function of the integer input at t + 1 and not of
    the input at t (see the module doc); False otherwise, and for any other layout."""
    if x is None or y is None or x.ndim != 2 or y.ndim != 2 or x.shape[0] != y.shape[0]:
        return False
    if x.dtype.kind not in "iu":
        return False
    y = _whole_numbers_as_ids(y)
    if y is None:
        return False
    pairs = min(y.shape[1], x.shape[1] - 1)
    if pairs < 1:
        return False
    ahead = _determined(x[:, 1:pairs + 1], y[:, :pairs], ignore_index)
    here = _determined(x[:, :pairs], y[:, :pairs], ignore_index)
    return ahead is not None and here is not None and ahead >= DETERMINED and \
        here < OWN_POSITION_MAX


def _determined(ids, targets, ignore_index):
    """Share of the (id, target) pairs whose target is the most common one for their id, or
    None when the pairs cannot tell (too few, too few ids, a (nearly) constant target)."""
    keep = targets != ignore_index
    ids, targets = ids[keep].ravel(), targets[keep].ravel()
    if ids.size < MIN_PAIRS:
        return None
    _, counts = np.unique(targets, return_counts=True)
    if counts.max() > MAX_TARGET_SHARE * targets.size:
        return None
    id_values, id_index = np.unique(ids, return_inverse=True)
    if len(id_values) < MIN_IDS or ids.size < MIN_PAIRS_PER_ID * len(id_values):
        return None
    _, target_index = np.unique(targets, return_inverse=True)
    table = np.zeros((len(id_values), target_index.max() + 1), dtype=np.int64)
    np.add.at(table, (id_index, target_index), 1)
    return float(table.max(axis=1).sum() / ids.size)
