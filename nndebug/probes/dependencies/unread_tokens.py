"""OUTPUT_READS_FEW_TOKENS: a per-text output that most of the text's tokens never reach.

A sequence classifier pools its tokens into one vector per text, and that vector must have
seen the text. Two common slips leave it seeing almost nothing while training runs smoothly
at a loss just above chance: a decoder-only (causal) model pooled at its first token, as a
BERT is at [CLS] - under the causal mask that position attends to itself alone - and an
attention mask that hides the text, as when segment ids are passed positionally where
forward takes ``attention_mask`` (the keys left are the second segment's few tokens).

How it is seen: for the probed samples with the most real (unpadded) tokens, the real
positions are split into ``GROUPS`` random disjoint groups, and each group's token ids are
replaced by other ids of the batch in a copy of its own; all copies run in one forward pass.
A group whose replacement leaves the sample's output exactly as it was (relative change
under ``RELATIVE_TOLERANCE``) is unread. A healthy pooled model reads every group: replacing
a quarter of a text's tokens always moves its output somewhat. Outputs per position (a
language model, a tagger) are not probed: their positions read their own tokens.
"""
import numpy as np

from ...findings import Finding
from .future import positions_first
from .measure import RELATIVE_TOLERANCE, row_changes
from .padding import find_padding

UNREAD_TOKENS_GROUPS = 8
"""[design] groups the real positions of a probed text are split into (one copy each): 8
tell 'reads one token' (7 unread) from 'reads a few' and from 'reads all' at one forward
pass of a few dozen rows."""
UNREAD_TOKENS_MIN_REAL = 16
"""[design] real tokens a probed text needs (two or more per group): shorter texts are left
out, a group of one token could be a token the model is right to find uninformative."""
UNREAD_TOKENS_SAMPLES = 4
"""[design] texts probed, the longest of the batch (the copies of all of them: one pass)."""
UNREAD_TOKENS_SINGLES = 16
"""[design] read positions tested one by one, in one more pass, when the read groups hold no
more (the message then names them exactly; a text that reads many is past naming)."""
UNREAD_TOKENS_SHARE = 0.5
"""[design] the share of groups unread, on the median probed text, from which the finding is
made: a pooled text classifier that never reads half its text has lost the text, not tuned
its attention (a healthy one reads every group; the batch-53 reports read 1 of 8 and 2-3 of
8)."""


def probe_unread_tokens(runner, batch, base_out, rng):
    """(findings, notes)."""
    x = batch.x
    if batch.is_float or x.ndim != 2 or positions_first(base_out, batch.length) is not None:
        return [], []
    found = find_padding(runner, batch)
    real = ~found[0] if found is not None else np.ones(x.shape, bool)
    counts = real.sum(axis=1)
    samples = [int(s) for s in np.argsort(-counts, kind="stable")[:UNREAD_TOKENS_SAMPLES]
               if counts[s] >= UNREAD_TOKENS_MIN_REAL]
    vocabulary = np.unique(x[real])
    if not samples or vocabulary.size < 2:
        return [], []
    groups, copies, rows = {}, [], []
    for s in samples:
        positions = rng.permutation(np.flatnonzero(real[s]))
        groups[s] = np.array_split(positions, UNREAD_TOKENS_GROUPS)
        rows.append(s)
        copies.append(x[s].copy())
        for group in groups[s]:
            changed = x[s].copy()
            changed[group] = other_ids(x[s][group], vocabulary, rng)
            rows.append(s)
            copies.append(changed)
    out, _ = runner.forward(batch.rows(rows, primary=np.stack(copies)), len(rows), batch.length)
    per_sample = UNREAD_TOKENS_GROUPS + 1
    unread = {}
    for i, s in enumerate(samples):
        block = out[i * per_sample:(i + 1) * per_sample]
        changes = row_changes(np.repeat(block[:1], UNREAD_TOKENS_GROUPS, axis=0), block[1:])
        unread[s] = [k for k, change in enumerate(changes) if change <= RELATIVE_TOLERANCE]
    shares = [len(unread[s]) / UNREAD_TOKENS_GROUPS for s in samples]
    if float(np.median(shares)) < UNREAD_TOKENS_SHARE:
        return [], []
    s = samples[int(np.argmax(shares))]
    read = sorted(int(p) for k, g in enumerate(groups[s]) if k not in unread[s] for p in g)
    read = _single_positions_read(runner, batch, s, read, vocabulary, rng)
    first_only = read == [int(np.flatnonzero(real[s])[0])]
    return [Finding(
        "OUTPUT_READS_FEW_TOKENS", "warning", None,
        message=f"the model's one output per text does not depend on most of its tokens: "
                f"replacing the token ids of {len(unread[s])} of {UNREAD_TOKENS_GROUPS} random "
                f"groups of sample {s}'s {int(counts[s])} real positions leaves its output "
                f"exactly as it was (median over {len(samples)} samples: "
                f"{np.median(shares):.0%} of the groups unread); it can only read positions "
                f"{_shown(read)}" + (" - the first token alone, which under a causal mask "
                                     "has seen nothing after it" if first_only else ""),
        evidence={"sample": s, "real_positions": int(counts[s]), "groups": UNREAD_TOKENS_GROUPS,
                  "unread_groups": len(unread[s]), "median_unread_share": float(
                      np.median(shares)), "positions_read_at_most": read[:64],
                  "first_token_only": first_only, "padding_found_from":
                      found[1] if found is not None else None},
        fix="pool where the whole text has been seen: the last real token of a causal "
            "(decoder-only) model, [CLS] or a masked mean of a bidirectional one; and pass the "
            "attention mask by keyword (model(ids, attention_mask=mask, token_type_ids=segments):"
            " positionally, segment ids land where forward takes the mask)")], []


def _single_positions_read(runner, batch, sample, candidates, vocabulary, rng):
    """Which of ``candidates`` (the read groups' positions, at most
    ``UNREAD_TOKENS_SINGLES``) the output reads, one copy per position in one pass: the
    message can then say "the first token alone". More candidates are returned as they are."""
    if not candidates or len(candidates) > UNREAD_TOKENS_SINGLES:
        return candidates
    x = batch.x[sample]
    copies = [x.copy()]
    for p in candidates:
        changed = x.copy()
        changed[p] = other_ids(x[p:p + 1], vocabulary, rng)[0]
        copies.append(changed)
    rows = [sample] * len(copies)
    out, _ = runner.forward(batch.rows(rows, primary=np.stack(copies)), len(rows), batch.length)
    changes = row_changes(np.repeat(out[:1], len(candidates), axis=0), out[1:])
    return [p for p, change in zip(candidates, changes) if change > RELATIVE_TOLERANCE]


def other_ids(ids, vocabulary, rng):
    """For each id, another id of the batch's vocabulary (never the same one)."""
    drawn = rng.choice(vocabulary, size=ids.shape)
    same = drawn == ids
    while same.any():
        drawn[same] = rng.choice(vocabulary, size=int(same.sum()))
        same = drawn == ids
    return drawn.astype(ids.dtype)


def _shown(positions, limit=12):
    text = ", ".join(str(p) for p in positions[:limit])
    return f"[{text}{', ...' if len(positions) > limit else ''}]"
