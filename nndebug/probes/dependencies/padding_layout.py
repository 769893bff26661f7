"""Samples that meet only through the batch's padding: what each one reads, in its batch.

A packed recurrent encoder (or any model that sizes its work by the batch's lengths) can let
one sample's output depend on the OTHER samples' lengths without reading a single one of
their tokens. Two slips do it (real-bug batch 77):

- the summary read at the padded output's last step, ``pad_packed_sequence(...)[0][:, -1]``:
  that step is the last real one only for the batch's longest sequence; for every shorter
  one it is padding, zeros after ``pad_packed_sequence`` (allennlp#1713);
- the lengths sorted on their own for ``enforce_sorted=True`` while the sequences stay in
  batch order: each sequence is packed with another one's length, cut short or read on into
  its padding (pytorch#144207).

The batch-mixing probe sees these as samples reading each other - and they do, but only
because its perturbation of a sample also changes where that sample's padding starts (a
token id replaced by the padding id, or the padding by a token id). The probes that name a
reading (``padding.py``, ``unread_tokens.py``) run one sample alone or beside copies of
itself, where the batch's lengths are its own and both slips vanish.

How it is seen: (1) each of the first ``n`` samples' REAL tokens is replaced by other real
ids, the padding left where it was: if no other sample's output moves, samples meet only
through the padding layout. (2) Then each sample is probed where it sits, in the same batch:
its padded positions' embedding output is changed (PADDING_LEAK: the sample reads its
padding), and its real positions are changed group by group (OUTPUT_READS_FEW_TOKENS: the
sample's one output never sees most of its own text). Runs only when the batch-mixing probe
has already found mixing on token ids with padding: nothing on a healthy run.
"""
import numpy as np

from ...findings import Finding
from .future import positions_first
from .measure import RELATIVE_TOLERANCE, row_changes
from .padding import find_padding
from .runner import ModelFailed
from .unread_tokens import other_ids

LAYOUT_GROUPS = 8
"""[design] groups a probed sample's real positions are split into, as UNREAD_TOKENS_GROUPS:
one forward pass of the batch per group."""
LAYOUT_MIN_REAL = 8
"""[design] real tokens a sample needs to be probed for unread groups (one per group)."""
LAYOUT_SAMPLES = 4
"""[design] samples probed for unread groups (the batch once per group each: 32 passes of
the probed slice at most)."""
LAYOUT_UNREAD_SHARE = 0.5
"""[design] share of groups unread, on the median probed sample, from which
OUTPUT_READS_FEW_TOKENS is named, as UNREAD_TOKENS_SHARE (a healthy reader reads every
group; the summary read at padding reads none of a shorter sample's groups)."""


def mixing_through_padding(runner, batch, n, base_out, rng):
    """(padded mask of the first ``n`` samples, how it was found) when samples of the first
    ``n`` move only with the others' padding layout - changing another sample's real tokens
    (its padding untouched) never moves them; None otherwise."""
    if batch.is_float or batch.x.ndim != 2 or n < 2:
        return None
    found = find_padding(runner, batch)
    if found is None:
        return None
    padded = found[0][:n]
    x = batch.x[:n]
    real_ids = np.unique(x[~padded])
    if real_ids.size < 2 or not padded.any():
        return None
    for k in range(n):
        changed = x.copy()
        where = np.flatnonzero(~padded[k])
        changed[k, where] = other_ids(x[k, where], real_ids, rng)
        try:
            out, _ = runner.forward(batch.rows(range(n), primary=changed), n, batch.length)
        except ModelFailed:
            return None
        moved = row_changes(base_out, out)
        if np.delete(moved, k).max() > RELATIVE_TOLERANCE:
            return None       # a sample reads another one's tokens: a real mix-up
    return padded, found[1]


def probe_in_batch(runner, batch, n, base_out, padded, how, rng):
    """(findings, notes): each of the first ``n`` samples read where it sits in its batch."""
    findings = _padding_read_in_batch(runner, batch, n, base_out, padded, how, rng)
    if positions_first(base_out, batch.length) is None:
        findings += _tokens_unread_in_batch(runner, batch, n, base_out, padded, rng)
    return findings, []


def _padding_read_in_batch(runner, batch, n, base_out, padded, how, rng):
    x = batch.x[:n]
    leaks = []
    for s in np.flatnonzero(padded.any(axis=1) & ~padded.all(axis=1)):
        edit = _RowEmbeddingEdit(runner, int(s), padded[s], x.shape, rng)
        try:
            out, _ = runner.forward_edited(batch.rows(range(n)), n, batch.length, edit)
        except ModelFailed:
            return []
        if not edit.done:
            return []
        arranged = positions_first(out, batch.length)
        base = positions_first(base_out, batch.length)
        if arranged is None:
            change = float(row_changes(base_out[s:s + 1], out[s:s + 1]).max())
        else:
            change = float(row_changes(base[s], arranged[s])[~padded[s]].max())
        if change > RELATIVE_TOLERANCE:
            leaks.append((int(s), change))
    if not leaks:
        return []
    s, change = max(leaks, key=lambda pair: pair[1])
    return [Finding(
        "PADDING_LEAK", "error", None,
        message=f"in its batch, sample {s}'s output changes with the content of its own padded "
                f"positions ({int(padded[s].sum())} of {batch.length} padded, found from {how}; "
                f"change {change:.2g} relative; {len(leaks)} of {n} samples read theirs), while "
                "the other samples' tokens never move it - only where their padding starts "
                "does: what a sample reads is set by the OTHER samples' lengths. A packed "
                "sequence given lengths that are not its own (sorted apart from the sequences) "
                "reads on into its padding, or stops short of its end",
        evidence={"kind": "read in its batch", "samples_reading_padding": [p for p, _ in leaks],
                  "strength": change, "samples_probed": n, "found_from": how},
        fix="give each sequence its own length: pack with pack_padded_sequence(x, lengths, "
            "batch_first=True, enforce_sorted=False), or sort the sequences WITH their lengths "
            "(x[order], lengths[order]) and put the outputs back in batch order")]


def _tokens_unread_in_batch(runner, batch, n, base_out, padded, rng):
    x = batch.x[:n]
    real = ~padded
    counts = real.sum(axis=1)
    # the batch's longest sequences are the ones a reading set by the batch gets right:
    # probe the longest of the others first (as long as possible, yet not the longest)
    order = [int(s) for s in np.argsort(counts, kind="stable")[::-1]
             if counts[s] >= LAYOUT_MIN_REAL]
    samples = ([s for s in order if counts[s] < counts.max()] or order)[:LAYOUT_SAMPLES]
    real_ids = np.unique(x[real])
    if not samples or real_ids.size < 2:
        return []
    shares = {}
    for s in samples:
        groups = np.array_split(rng.permutation(np.flatnonzero(real[s])), LAYOUT_GROUPS)
        unread = 0
        for group in groups:
            changed = x.copy()
            changed[s, group] = other_ids(x[s, group], real_ids, rng)
            try:
                out, _ = runner.forward(batch.rows(range(n), primary=changed), n, batch.length)
            except ModelFailed:
                return []
            if row_changes(base_out[s:s + 1], out[s:s + 1]).max() <= RELATIVE_TOLERANCE:
                unread += 1
        shares[s] = unread / LAYOUT_GROUPS
    median = float(np.median(list(shares.values())))
    if median < LAYOUT_UNREAD_SHARE:
        return []
    s = max(shares, key=shares.get)
    longest = int(counts.max())
    return [Finding(
        "OUTPUT_READS_FEW_TOKENS", "warning", None,
        message=f"in its batch, sample {s}'s one output does not depend on "
                f"{shares[s]:.0%} of its {int(counts[s])} real tokens (groups of them replaced, "
                f"the batch otherwise unchanged; median over {len(shares)} samples: {median:.0%} "
                f"unread), while the batch's other samples change it only through where their "
                f"padding starts: the output is read at a place set by the batch (its longest "
                f"sequence, {longest} tokens), not by the sample - the last step of a padded "
                "output, zeros for every shorter sequence after pad_packed_sequence",
        evidence={"kind": "read in its batch", "sample": s, "real_positions": int(counts[s]),
                  "unread_share": shares[s], "median_unread_share": median,
                  "samples_probed": len(shares), "longest_in_batch": longest},
        fix="read each sequence at its own last real step: out[torch.arange(B), lengths - 1] "
            "after pad_packed_sequence, or the packed RNN's h_n (h_n[-1]; both directions' "
            "h_n[-2:] for a bidirectional one), never out[:, -1]")]


class _RowEmbeddingEdit:
    """A forward hook: where an embedding reads the batch's (n, T) token ids, change its output
    at the padded positions of one row only."""

    def __init__(self, runner, row, hidden, shape, rng):
        self.work, self.row, self.hidden, self.shape, self.rng = \
            runner.work, row, hidden, tuple(shape), rng
        self.done = False

    def __call__(self, module, args, output):
        if self.done or "Embedding" not in self.work.module_type(module) or not args:
            return
        ids = self.work.to_numpy(args[0])
        if ids.dtype.kind not in "iu" or tuple(ids.shape[:2]) != self.shape:
            return
        values = self.work.to_numpy(output)
        scale = float(np.std(values)) or 1.0
        values[self.row][self.hidden] += self.rng.normal(
            0.0, scale, size=values[self.row][self.hidden].shape)
        self.work.set_parameter(output, values)
        self.done = True
