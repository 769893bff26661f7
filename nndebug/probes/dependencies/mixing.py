"""BATCH_MIXING: the output of one sample depends on the inputs of another.

Samples of a batch are independent examples; a model must compute each one's output from
that sample alone. A ``view``/``reshape`` that moves the batch dimension (where a
``permute``/``transpose`` was needed), a reduction or softmax over dimension 0, or a
sequence-first layer (``batch_first=False``) fed batch-first tensors silently lets samples
read each other: training still runs, often with a suspiciously good loss, and the model
falls apart on batches of a different size or make-up.

How it is seen: for float inputs, the gradient of sample i's output (a random direction in
it) with respect to the whole batch's inputs must be zero outside sample i; for integer
inputs (token ids), changing sample j's ids must leave every other sample's output
bit-for-bit the same. The same perturbation, watched at every module's output with forward
hooks, names the first module whose output already mixes samples. Per-position outputs
flattened for the loss, (batch * time, ...), are read folded back sample-major
(``runner.folded_per_sample``): a time-major output flattened as if it were batch-major - a
batch-first pack unpacked without ``batch_first=True`` - then shows as samples mixing.
"""
import math

import numpy as np

from ...findings import Finding
from .batch import perturbed_rows
from .measure import (RELATIVE_TOLERANCE, describe_place, first_culprit, gradient_mass, relative,
                      row_changes, scale_of)
from .runner import ModelFailed

MAX_PAIRS_SHOWN = 12
SEQUENCE_FIRST_TYPES = ("MultiheadAttention", "Transformer", "TransformerEncoder",
                        "TransformerDecoder", "TransformerEncoderLayer", "TransformerDecoderLayer",
                        "RNN", "LSTM", "GRU")


def probe_batch_mixing(runner, batch, n, base_out, rng, time_on_dim1=False):
    """(findings, notes) for the first ``n`` samples (``base_out``: the model's output on them).
    ``time_on_dim1``: the targets were measured to be the inputs shifted along dimension 1
    (a next-token offset), so the data are batch-first and no sequence-first reading of a
    mix along dimension 0 is left (core variants 4)."""
    if n < 2:
        return [], ["batch mixing not checked: it needs a batch of at least 2 samples"]
    if _pairwise_output(runner, batch, n, base_out):
        return [], ["batch mixing not checked: the output has one column per sample (pairwise "
                    "scores, as contrastive models compute), so samples meet by design"]
    tree = batch.rows(range(n))
    if batch.is_float:      # exact: a gradient that does not exist is exactly zero
        matrix, method = _gradient_matrix(runner, batch, tree, base_out, rng), "gradient"
        if not _off_diagonal(matrix):
            return probe_place_in_batch(runner, batch, n, base_out)
    runs = _perturbation_runs(runner, batch, n, rng)     # also watched at every module
    if not batch.is_float:
        matrix, method = np.stack([row_changes(base_out, out) for out, _ in runs[1:]], axis=1), \
            "perturbation"
    mixed = _off_diagonal(matrix)
    if not mixed:
        return probe_place_in_batch(runner, batch, n, base_out)
    reason = None if time_on_dim1 else _mixing_by_design(runner, batch, n, base_out, rng)
    if reason:
        return [], [reason]
    where, seen_at, after = _first_mixing_module(runs, n)
    modules = dict(runner.work.named_modules())
    module = modules.get(where) if where else None
    kind = runner.work.module_type(module) if module is not None else ""
    if "BatchNorm" in kind:
        return [Finding(
            "BATCH_MIXING", "info", where,
            message=f"{kind} '{where}' normalises with the batch's own statistics even in eval "
                    "mode (track_running_stats=False): samples influence each other by design",
            evidence=_evidence(matrix, mixed, n, method, where, after),
            fix="nothing to fix if intended; use track_running_stats=True (the default) for "
                "per-sample outputs at inference")], []
    summary = _batch_summary(runs, n, where, seen_at)
    if summary:
        return [Finding(
            "BATCH_MIXING", "info", where,
            message=f"samples meet only through a statistic of the batch appended to every "
                    f"sample ({summary['mixed_values']} of {summary['values']} values per sample "
                    f"read other samples, and each holds at most {summary['distinct']} "
                    "value(s) across the batch): minibatch discrimination, as ProGAN and "
                    "StyleGAN discriminators do on purpose",
            evidence={**_evidence(matrix, mixed, n, method, where, after), **summary},
            fix="nothing to fix if intended; such a statistic is undefined on a batch of one "
                "(the unbiased std of one sample is NaN): drop the last partial batch "
                "(DataLoader(..., drop_last=True)) and score single samples in batches")], []
    share = len(mixed) / (n * (n - 1))
    place = describe_place(where, kind, seen_at, after)
    pairs = ", ".join(f"{i}<-{j}" for i, j in mixed[:4])
    return [Finding(
        "BATCH_MIXING", "error", where,
        message=f"the output of a sample depends on other samples of the batch ({len(mixed)} of "
                f"{n * (n - 1)} sample pairs, e.g. {pairs}); made in {place}",
        evidence=_evidence(matrix, mixed, n, method, where, after, share=share),
        fix=_fix(module, kind, where))], []


MAX_COLUMNS_PROBED = 8
"""Positions of dimension 1 perturbed to see whether it, rather than dimension 0, is the batch."""


def mixing_anywhere(runner, batch, rng):
    """Whether any sample of the WHOLE batch reads any other, in 2 * ceil(log2(B)) forward
    passes: for each bit k of the sample index, the samples whose bit k is 0 (then 1) are
    changed together and the others must not move. Any two samples differ in some bit, so a
    single mixed pair anywhere in the batch is caught - the slice the other probes look at
    need not contain it."""
    size = batch.size
    base, _ = runner.forward(batch.rows(range(size)), size, batch.length)
    for bit in range(max(1, math.ceil(math.log2(size)))):
        for side in (0, 1):
            chosen = [i for i in range(size) if (i >> bit) & 1 == side]
            others = [i for i in range(size) if (i >> bit) & 1 != side]
            if not chosen or not others:
                continue
            changed = perturbed_rows(batch.x, range(size), {i: ... for i in chosen}, rng,
                                     per_column=batch.ids_per_column)
            out, _ = runner.forward(batch.rows(range(size), primary=changed), size, batch.length)
            if row_changes(base, out)[others].max() > RELATIVE_TOLERANCE:
                return True
    return False


def _pairwise_output(runner, batch, n, base_out):
    """Whether the output has one column per sample: with one sample fewer, one column fewer."""
    if base_out.ndim < 2 or base_out.shape[1] != n or n < 3:
        return False
    try:
        smaller, _ = runner.forward(batch.rows(range(n - 1)), n - 1, batch.length)
    except ModelFailed:
        return False
    return smaller.ndim >= 2 and smaller.shape[1] == n - 1


def _mixing_by_design(runner, batch, n, base_out, rng):
    """A note when samples "mix" because of how the data are laid out, not by a bug
    - the data are sequence-first, (T, B, ...): dimension 0 is time, so its entries depend on
      each other, while dimension 1 - the real batch - is perfectly independent.
    Not asked when the targets are the inputs shifted along dimension 1 (``time_on_dim1``):
    time is dimension 1 there, and a 2-layer LSTM built without batch_first, fed (32, 32)
    windows, reads along the batch with its time axis independent - the same look.
    """
    x = batch.x[:n]
    columns = x.shape[1] if x.ndim >= 2 else 0
    if columns < 2 or base_out.ndim < 2 or base_out.shape[1] != columns:
        return None
    for k in range(min(columns, MAX_COLUMNS_PROBED)):
        changed = perturbed_rows(x, range(n), {r: k for r in range(n)}, rng,
                                 per_column=batch.ids_per_column)
        out, _ = runner.forward(batch.rows(range(n), primary=changed), n, batch.length)
        moved = row_changes(base_out, out, axis_rows=1)
        if np.delete(moved, k).max() > RELATIVE_TOLERANCE:
            return None        # dimension 1 is not independent either: a real mix-up
    return ("batch mixing not reported: dimension 0 of the inputs mixes but dimension 1 is "
            "perfectly independent - the data look sequence-first (T, B, ...); the probes need "
            "batch-first inputs (e.g. pass inputs.transpose(0, 1) to a batch_first model)")


def probe_place_in_batch(runner, batch, n, base_out):
    """BATCH_MIXING of another kind: no sample reads another, but a sample's output depends on
    its index in the batch (the batch run in reverse order must give the same rows, reversed).
    A table sliced by x.size(0) on batch-first tensors does this."""
    order = np.arange(n)[::-1].copy()
    # the modules are watched (every call's input and output kept) only if an output moved
    out, _ = runner.forward(batch.rows(order), n, batch.length)
    moved = row_changes(base_out[order], out)
    if moved.max() <= RELATIVE_TOLERANCE:
        return [], []
    _, calls = runner.forward(batch.rows(order), n, batch.length, capture=True)
    _, base_calls = runner.forward(batch.rows(range(n)), n, batch.length, capture=True)

    def shows(c, which):
        a, b = getattr(base_calls[c], which), getattr(calls[c], which)
        if a is None or b is None or a.shape != b.shape:
            return None
        return float(row_changes(a[order], b).max()) > RELATIVE_TOLERANCE
    same_calls = [c.name for c in calls] == [c.name for c in base_calls]
    where, seen_at, after = first_culprit(base_calls, shows) if same_calls else ("", "", "")
    module = dict(runner.work.named_modules()).get(where) if where else None
    kind = runner.work.module_type(module) if module is not None else ""
    return [Finding(
        "BATCH_MIXING", "error", where,
        message=f"identical samples get different outputs depending on their place in the batch "
                f"(reversing the batch changes {int((moved > RELATIVE_TOLERANCE).sum())} of {n} "
                f"outputs by up to {moved.max():.2g} relative); made in "
                f"{describe_place(where, kind, seen_at, after)}",
        evidence={"kind": "place in batch", "samples_probed": n,
                  "changed_samples": [int(i) for i in np.flatnonzero(moved > RELATIVE_TOLERANCE)],
                  "strength": float(moved.max()), "module": where, "seen_at": seen_at,
                  "last_clean_module": after},
        fix="something is indexed by the batch dimension: a table sliced with x.size(0) on "
            "batch-first tensors (the PyTorch tutorial's PositionalEncoding expects (T, B, E); "
            "slice with x.size(1)), or a per-position tensor broadcast along dim 0")], []


def _gradient_matrix(runner, batch, tree, base_out, rng):
    """M[i, j]: size of d(sample i's output . random direction)/d(sample j's input)."""
    n = base_out.shape[0]
    rows = []
    for i in range(n):
        cotangent = np.zeros_like(base_out)
        cotangent[i] = rng.normal(size=base_out[i].shape)
        rows.append(gradient_mass(runner.input_gradient(tree, batch.primary, cotangent), 0))
    return relative(np.stack(rows))


def _perturbation_runs(runner, batch, n, rng):
    """[(output, module calls)]: the unchanged samples first, then one run per changed sample."""
    x = batch.x[:n]
    runs = [runner.forward(batch.rows(range(n)), n, batch.length, capture=True)]
    for k in range(n):
        changed = perturbed_rows(x, range(n), {k: ...}, rng,
                                 per_column=batch.ids_per_column)
        runs.append(runner.forward(batch.rows(range(n), primary=changed), n, batch.length,
                                   capture=True))
    return runs


def _off_diagonal(matrix):
    n = matrix.shape[0]
    return [(i, j) for i in range(n) for j in range(n)
            if i != j and matrix[i, j] > RELATIVE_TOLERANCE]


def _first_mixing_module(runs, n):
    """(where samples first mix, the module whose output first shows it, the last clean one)."""
    base_calls = runs[0][1]
    if any([c.name for c in calls] != [c.name for c in base_calls] for _, calls in runs):
        return "", "", ""      # the calls differ between runs (data-dependent control flow)

    def shows(c, which):
        base = getattr(base_calls[c], which)
        changed = [getattr(calls[c], which) for _, calls in runs[1:]]
        if base is None or any(a is None or a.shape != base.shape for a in changed):
            return None           # no sample axis to read
        return bool(_off_diagonal(np.stack([row_changes(base, a) for a in changed], axis=1)))
    return first_culprit(base_calls, shows)


SUMMARY_SHARE = 0.25   # [design] a statistic appended to each sample is a few of its values
                       # (ProGAN's minibatch std: one feature map of 257; StyleGAN's: one of
                       # 513); a mix-up moves most of them (a batch-mean concatenated to the
                       # features: half; a view across the batch: all)


def _batch_summary(runs, n, where, seen_at):
    """Evidence when samples meet only through a statistic of the batch appended to each
    sample (minibatch discrimination): at the first tensor that mixes - the output of
    ``seen_at``, or its input when the mix was made around it (``where`` is then its parent)
    - the values that move with another sample are at most SUMMARY_SHARE of a sample's
    values, and each of them takes at most n // 2 different values across the samples (one
    per group the statistic is taken over: the whole batch, or StyleGAN's groups of 4).
    A mix-up gives each sample its own changed values and moves most of them. None
    otherwise."""
    if not seen_at:
        return None
    which = "input" if where != seen_at else "output"
    base_calls = runs[0][1]
    number = next((c for c, call in enumerate(base_calls) if call.name == seen_at), None)
    if number is None or any(len(calls) != len(base_calls) for _, calls in runs):
        return None
    arrays = [getattr(calls[number], which) for _, calls in runs]
    if any(a is None or a.shape != arrays[0].shape or a.shape[0] != n for a in arrays):
        return None
    base = np.asarray(arrays[0], np.float64).reshape(n, -1)
    moved = np.zeros(base.shape[1], dtype=bool)
    for k, changed in enumerate(arrays[1:]):
        change = np.abs(np.asarray(changed, np.float64).reshape(n, -1) - base) / scale_of(base)
        moved |= (np.delete(change, k, axis=0) > RELATIVE_TOLERANCE).any(axis=0)
    if not moved.any() or moved.sum() > SUMMARY_SHARE * base.shape[1]:
        return None
    distinct = max(len(np.unique(column)) for column in base[:, moved].T)
    if distinct > max(1, n // 2):
        return None
    return {"kind": "batch statistic appended", "mixed_values": int(moved.sum()),
            "values": int(base.shape[1]), "distinct": int(distinct)}


def _evidence(matrix, mixed, n, method, where, after, share=None):
    return {"pairs": [[int(i), int(j)] for i, j in mixed[:MAX_PAIRS_SHOWN]],
            "n_pairs": len(mixed), "samples_probed": n,
            "strength": float(max(matrix[i, j] for i, j in mixed)),
            "share_of_pairs": share, "method": method, "module": where, "last_clean_module": after,
            "meaning": "pair [i, j]: the output of sample i changes with the input of sample j; "
                       "strength: relative to sample i's dependence on its own input"}


def _fix(module, kind, where):
    if module is not None and kind in SEQUENCE_FIRST_TYPES and \
            getattr(module, "batch_first", True) is False:
        return (f"'{where}' is a sequence-first layer (batch_first=False: it reads dim 0 as time) "
                "fed batch-first tensors: construct it with batch_first=True, or transpose its "
                "input and output")
    inside = f"in the forward of '{where}'" if where else "in the model's forward"
    return (f"look {inside} for a .view/.reshape that moves the batch dimension: reorder "
            "dimensions with .permute/.transpose (then reshape), split heads as "
            "x.view(B, T, heads, d).transpose(1, 2), check reductions or softmax over dim 0, "
            "and unpack a batch-first PackedSequence with pad_packed_sequence(..., "
            "batch_first=True) (its default returns (T, B, ...))")
