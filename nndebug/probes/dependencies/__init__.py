"""``check_dependencies``: does the model look at what it must not see?

A whole family of silent bugs trains smoothly - often with a loss that looks *better*
than it should - and no statistic of activations or gradients reveals it: the model
depends on inputs it must not depend on. This probe charts what depends on what, with
the gradient where the inputs are floats ("make the loss depend on one sample's output,
backpropagate to the inputs, see which inputs received gradient", as Karpathy's "A Recipe
for Training Neural Networks" advises) and by perturbing token ids where they are
discrete, and names:

- BATCH_MIXING        a sample's output reads other samples of the batch   (mixing.py)
- FUTURE_LEAK         a next-position predictor reads the position it predicts (future.py)
- TARGETS_IN_INPUTS   the target of a position is the input at that position (alignment.py),
                      or is read there in training mode only: teacher forcing one step too
                      late (train_mode.py), or is a measurement a causal sequence model was
                      just given (causal_copy.py)
- LABELS_MISALIGNED   the targets are the inputs shifted by the wrong offset  (alignment.py)
- POSITIONS_IGNORED   positional parameters that make no difference           (positions.py)
- PADDING_LEAK        the real positions read the padded ones                 (padding.py),
                      or that there are any (padding_amount.py)
- OUTPUT_READS_FEW_TOKENS  one output per text that most of its tokens never reach
                      (unread_tokens.py)
- STATE_CARRIED_ACROSS_BATCHES  the same batch twice gives two answers        (state.py)

Everything runs on a private float64 copy in eval mode (the training-mode pass puts the
copy's own user-defined modules in training mode, the framework's layers stay in eval); the
user's model, modes, grads, hooks and RNG are exactly as they were afterwards.
"""
import numbers
from dataclasses import dataclass, field

import numpy as np

from ...adapters import adapt
from ...findings import sort_findings
from ... import validation
from .alignment import measure_offset, probe_alignment, probe_label_column
from .causal_copy import probe_causal_copy
from .copy_path import drop_if_reconstruction
from .encoded_next import targets_in_next_inputs
from .batch import Batch, array_leaves, to_tree
from .future import probe_future_leak
from .loss_shift import loss_shift
from .measure import RELATIVE_TOLERANCE, row_changes
from .mixing import mixing_anywhere, probe_batch_mixing, probe_place_in_batch
from .padding import find_padding, probe_padding
from .padding_amount import probe_padding_amount
from .padding_layout import mixing_through_padding, probe_in_batch
from .positions import positional_tensors, probe_positions
from .runner import ModelFailed, Runner
from .shifted_inside import drop_if_next_column, drop_if_shifted_inside
from .state import STATE_KEPT, state_carried
from .train_mode import probe_train_mode, worth_a_train_mode_pass
from .target_window import probe_target_window
from .unread_tokens import probe_unread_tokens

WORKED_EXAMPLES = {
    "FUTURE_LEAK": "`nndebug zoo seq-gpt-no-causal-mask`; the same leak hidden in attention's "
                   "backward only: `nndebug bugs show attention_backward_forgets_the_mask`",
    "BATCH_MIXING": "`nndebug zoo seq-sample-mixing-view`",
    "TARGETS_IN_INPUTS": "`nndebug zoo seq-unshifted-labels`",
    "LABELS_MISALIGNED": "`nndebug zoo seq-unshifted-labels`",
    "POSITIONS_IGNORED": "`nndebug zoo seq-unused-positions`",
}
"""Where each finding is shown broken and fixed, for a learner who wants to see it happen."""
MAX_SAMPLES = 8
"""Samples the batch-mixing probe looks at (one gradient or forward pass each): a mix-up of
the batch dimension shows on any slice, and 8 keep the cost at a few passes."""


@dataclass
class DependencyResult:
    """What ``check_dependencies`` found; ``passed`` when nothing is a warning or an error."""
    findings: list = field(default_factory=list)
    notes: list = field(default_factory=list)      # what was not checked, and why
    checked: list = field(default_factory=list)    # the probes that ran
    offset: "int | None" = None                    # targets[:, t] == inputs[:, t + offset]
    n_forward: int = 0
    n_backward: int = 0

    @property
    def passed(self):
        return not any(f.severity in ("warning", "error") for f in self.findings)

    def __str__(self):
        verdict = "PASSED" if self.passed else "FAILED"
        lines = [f"dependency check: {verdict} - checked {', '.join(self.checked) or 'nothing'} "
                 f"({self.n_forward} forward, {self.n_backward} backward passes)"]
        for finding in self.findings:
            lines.append(f"  {finding}")
            if finding.fix:
                lines.append(f"    fix: {finding.fix}")
        lines += [f"  note: {note}" for note in self.notes]
        return "\n".join(lines)

    def to_dict(self):
        return {"passed": self.passed, "checked": list(self.checked), "offset": self.offset,
                "findings": [f.to_dict() for f in self.findings], "notes": list(self.notes)}


def check_dependencies(model, inputs, targets=None, *, causal=None, task_offset=None,
                       loss_fn=None, max_samples=MAX_SAMPLES, input_index=None, ignore_index=-100,
                       seed=0):
    """Check that each output depends only on what it may depend on.

    ``inputs``: one batch, batch first (a tensor, tuple/list or dict of them, as the model
    takes it; the first array, or ``input_index``, is the one perturbed; a padding mask
    travels with it). ``targets``: optional; for sequences, the offset between targets
    and inputs is measured (TARGETS_IN_INPUTS, LABELS_MISALIGNED) and, when the targets
    are the next positions, the model must be causal. ``causal``: True/False says it
    instead (None: from the targets). ``task_offset``: the shift the task wants (default
    1 for causal models). ``loss_fn``: optional; if it shifts the targets itself (it leaves
    the last output position out), targets equal to the inputs are read as next tokens.
    Returns a ``DependencyResult``.
    """
    adapter = adapt(model)
    max_samples = validation.integer(max_samples, "max_samples")
    if task_offset is not None and (isinstance(task_offset, bool) or
                                    not isinstance(task_offset, numbers.Integral)):
        raise TypeError(f"task_offset must be an integer (the shift between a position and the "
                        f"target it should predict, e.g. 1 for next-token prediction) or None, "
                        f"got {type(task_offset).__name__} {task_offset!r}")
    result = DependencyResult()
    # every probe runs on the Runner's private copy, so the user's parameters, grads, buffers,
    # modes and hooks are only read (tests/test_dependencies.py checks it); only the RNG, which
    # the copy shares, needs putting back. (No adapter.preserved(): its clones of every
    # parameter and gradient would double the model's memory for nothing.)
    with adapter.forked_rng(seed) as replay:
        batch = Batch(to_tree(adapter, inputs), input_index)
        y = _per_sample(_first_array(to_tree(adapter, targets)), batch) \
            if targets is not None else None
        rng = np.random.default_rng(seed)
        runner = Runner(adapter, replay)
        runner.fold_positions = _flattened_per_position(_first_array(to_tree(adapter, targets))
                                                        if targets is not None else None, batch)
        with validation.explain_forward_error(adapter, inputs):  # integer data, a float model
            n, base_out = _first_run(runner, batch, max_samples)
        # the input the targets are read against (a decoder input, in an encoder-decoder)
        sequence = batch if input_index is not None else _sequence_input(batch, y, ignore_index)
        shift = loss_shift(runner, sequence, targets, loss_fn, n) or 0
        findings, offset, notes = probe_alignment(sequence.x, y, causal=causal,
                                                  task_offset=task_offset,
                                                  ignore_index=ignore_index, loss_shift=shift)
        findings += probe_label_column(batch.x, y)
        if sequence is not batch:
            notes.append(f"the targets follow input array #{sequence.primary} (a decoder input, "
                         "not the first array): it is the one read for their offset and probed "
                         "for a future leak")
        result.offset = offset
        sequences = y is not None and y.ndim >= 2 and sequence.x.ndim >= 2
        result.checked.append("target alignment" if sequences else "")
        reason, change = _unreadable(runner, batch, n, base_out)
        if reason == STATE_KEPT:
            findings.append(state_carried(change))
        if reason is None:
            # labels handed over whole and shifted inside forward are no copy (shifted_inside.py)
            findings, offset = drop_if_shifted_inside(
                runner, sequence, np.random.default_rng(seed + 1), findings, offset, notes)
            # one step's target at a time, the next token (shifted_inside.py)
            findings = drop_if_next_column(runner, batch, np.random.default_rng(seed + 1),
                                           findings, notes)
            # an autoencoder's targets are its inputs on purpose (copy_path.py, batch 320)
            findings = drop_if_reconstruction(runner, sequence, np.random.default_rng(seed + 1),
                                              findings, notes,
                                              causal is not None or task_offset is not None)
            result.offset = offset
            _probe_model(runner, batch, sequence, n, base_out, rng, causal, offset, result,
                         findings, notes, y,
                         next_encoded=not offset and targets_in_next_inputs(
                             sequence.x, y, ignore_index))
        else:
            notes.append(f"dependencies on other samples and positions not checked: {reason}")
        if runner.switched:
            notes.append("probed in eval mode (batch-norm in training mode mixes samples by "
                         "design; dropout would draw a different mask per sample)")
        result.n_forward, result.n_backward = runner.n_forward, runner.n_backward
    result.checked = [c for c in result.checked if c]
    for finding in findings:
        if finding.severity != "info" and finding.code in WORKED_EXAMPLES:
            finding.fix += f" (worked example: {WORKED_EXAMPLES[finding.code]})"
    result.findings = sort_findings(findings)
    result.notes = notes
    return result


def _probe_model(runner, batch, sequence, n, base_out, rng, causal, offset, result, findings,
                 notes, y=None, next_encoded=False):
    """The probes that run the model: mixing, then (unless samples mix) the future leak,
    padding, positions and the training-mode pass. Findings and notes are appended to the
    lists given; a probe the model cannot run (it refuses the rearranged inputs) leaves a
    note instead."""
    def attempt(name, probe, *args, **kwargs):
        try:
            found, more = probe(*args, **kwargs)
        except ModelFailed as error:
            if batch.is_float or batch.x.ndim < 2 or batch.ids_per_column:
                notes.append(f"{name} not checked: the model failed on the rearranged inputs "
                             f"({error})")
                return []
            # integer columns with ranges of their own (categorical fields): ids drawn from
            # the whole batch can be out of a column's range; draw each from its column
            batch.ids_per_column = True
            return attempt(name, probe, *args, **kwargs)
        findings.extend(found)
        notes.extend(more)
        result.checked.append(name)
        return found

    # dimension 0 is known to be the batch when the targets are the inputs shifted along
    # dimension 1 (core variants 4) or hold one label per row of dimension 0 (batch 289)
    found = attempt("batch mixing", _mixing, runner, batch, n, base_out, rng,
                    time_on_dim1=bool(offset) or one_label_per_row_of_dim0(batch, y))
    mixing = any(f.severity != "info" for f in found)
    if mixing and batch.length and not batch.is_float:
        # samples meeting only through the padding layout: read each where it sits (batch 77)
        _name_padding_layout(attempt, runner, batch, n, base_out, rng, found)
    # the targets are the next inputs, or written into them (encoded_next.py, batch 321)
    wants_causal = causal if causal is not None else (offset == 1 or next_encoded)
    if wants_causal and sequence.length:
        if mixing:
            notes.append("future leak not checked: samples already mix (fix BATCH_MIXING "
                         "first; the position probe runs copies of a sample side by side)")
        else:
            reason = "causal=True was given" if causal else \
                "the targets are the next positions (targets[:, t] == inputs[:, t + 1])" \
                if offset == 1 else \
                "each target is determined by the next position's input id (it is written " \
                "into inputs[:, t + 1])"
            attempt("future leak", probe_future_leak, runner, sequence, rng, reason=reason)
    if batch.length and not mixing and find_padding(runner, batch):
        leaked = attempt("padding", probe_padding, runner, batch, rng)
        if not leaked:
            attempt("padding amount", probe_padding_amount, runner, batch, rng)
    if batch.length and not mixing and not batch.is_float:
        # its own generator: the probes after it draw what they drew before it was added
        attempt("unread tokens", probe_unread_tokens, runner, batch, base_out, rng.spawn(1)[0])
    if batch.length and not mixing and positional_tensors(runner.work):
        attempt("positions", probe_positions, runner, batch, rng)
    if not mixing and _float_copy(sequence, y, offset):
        # a forecaster scored on the input it was just given (causal_copy.py)
        attempt("copy through a causal model", probe_causal_copy, runner, sequence,
                rng.spawn(1)[0])
    if not mixing and y is not None and not (wants_causal and sequence.length):
        # a forecast window that starts inside the input window (target_window.py)
        attempt("target window", probe_target_window, runner, sequence, y, base_out, rng)
    if not mixing and worth_a_train_mode_pass(runner, sequence, y):
        attempt("training mode", probe_train_mode, runner, sequence, y, n, base_out, rng)


def _name_padding_layout(attempt, runner, batch, n, base_out, rng, mixing_found):
    """When the batch-mixing probe's samples meet only through where the others' padding
    starts (``padding_layout.py``), the readings probed in the batch name the cause; the
    mixing findings stay, as info."""
    layout = mixing_through_padding(runner, batch, n, base_out, rng.spawn(1)[0])
    if layout is None:
        return
    named = attempt("reading in its batch", probe_in_batch, runner, batch, n, base_out,
                    *layout, rng.spawn(1)[0])
    if not any(f.severity != "info" for f in named):
        return
    for finding in mixing_found:
        finding.severity = "info"
        finding.message = ("samples meet only through the batch's padding layout (another "
                           "sample's tokens never move an output; where its padding starts "
                           "does): " + finding.message)


def _float_copy(sequence, y, offset):
    """Float targets equal to the float inputs position by position (offset 0, same shape),
    inputs of (batch, positions, features): an autoencoder's, or a forecaster's scored on the
    input it was just given. (A flat (batch, features) autoencoder has no positions.)"""
    return offset == 0 and y is not None and sequence.is_float and sequence.length and \
        sequence.x.ndim >= 3 and \
        getattr(y, "dtype", None) is not None and y.dtype.kind == "f" and \
        tuple(y.shape) == tuple(sequence.x.shape)


def one_label_per_row_of_dim0(batch, y):
    """The targets that reached the loss hold one label per row of the inputs' dimension 0,
    (B,) against inputs (B, T, ...) with T != B: the loss pairs each row of dimension 0 with a
    sample's label, so dimension 0 is the batch. A recurrent layer built without
    ``batch_first=True`` and fed such rows runs along the batch, with its time axis
    independent - which, without the labels, reads like sequence-first data (jojonki/BiDAF#1,
    real-bug batch 289). Sequence-first data with one label per sample pair the labels with
    dimension 1 and are not matched."""
    x = batch.x
    if y is None or getattr(y, "ndim", 0) != 1 or getattr(x, "ndim", 0) < 2:
        return False
    return len(y) == x.shape[0] and x.shape[1] != len(y)


def _mixing(runner, batch, n, base_out, rng, time_on_dim1=False):
    """BATCH_MIXING. A batch larger than the probed slice is screened whole first (2 *
    ceil(log2 B) forward passes): when no sample anywhere reads another - the healthy case -
    only the place-in-batch check is left, and the pair-by-pair probe of the first ``n``
    samples (a pass per sample, every module watched) is spared. Otherwise the first ``n``
    are probed, and the whole batch when the mixed pair lies outside them."""
    if batch.size > n and not mixing_anywhere(runner, batch, rng.spawn(1)[0]):
        return probe_place_in_batch(runner, batch, n, base_out)
    found, more = probe_batch_mixing(runner, batch, n, base_out, rng, time_on_dim1)
    if not found and not more and batch.size > n:
        whole, _ = runner.forward(batch.rows(range(batch.size)), batch.size, batch.length)
        found, more = probe_batch_mixing(runner, batch, batch.size, whole, rng, time_on_dim1)
    return found, more


def _sequence_input(batch, y, ignore_index):
    """The input array the targets are a (shifted) copy of: the first array normally; in an
    encoder-decoder fed (source, decoder input), the decoder input - a copy task's source equal
    to its targets is then no TARGETS_IN_INPUTS, and the decoder side is what must be causal."""
    if y is None:
        return batch
    leaves = array_leaves(batch.tree)
    aligned = {}
    for i in sorted(batch.per_sample):
        if leaves[i].ndim >= 2:
            measured = measure_offset(leaves[i], y, ignore_index)
            if measured is not None:
                aligned[i] = measured[0]
    decoders = [i for i, k in aligned.items() if i != batch.primary and k == 1]
    if decoders and aligned.get(batch.primary) != 1:
        return Batch(batch.tree, decoders[0])
    if batch.primary not in aligned and aligned:
        return Batch(batch.tree, next(iter(aligned)))
    return batch


def _unreadable(runner, batch, n, base_out):
    """``(reason, change)``: why the model's dependences cannot be read (None: they can): outputs
    that are not finite, outputs that differ for the same inputs (STATE_KEPT: the RNG is
    replayed, so randomness repeats; ``change`` is how much they moved), randomness that
    eval() cannot reach, or a graph whose "samples" are nodes that exchange messages by
    design."""
    if not np.all(np.isfinite(base_out)):
        return "the model's output holds NaN or inf", None
    again, _ = runner.forward(batch.rows(range(n)), n, batch.length)
    if again.shape != base_out.shape:
        return STATE_KEPT, float("nan")
    change = float(row_changes(base_out, again).max())
    if change > RELATIVE_TOLERANCE:
        return STATE_KEPT, change
    # the RNG is replayed before every probing call, so dropout that eval() cannot reach
    # (a Dropout built inside forward) repeats its masks row by row: moving a sample to another
    # row would then look like "the output depends on the batch". Two calls that draw anew
    # show such randomness.
    first = runner.forward_drawing_anew(batch.rows(range(n)), n, batch.length)
    second = runner.forward_drawing_anew(batch.rows(range(n)), n, batch.length)
    if float(row_changes(first, second).max()) > RELATIVE_TOLERANCE:
        return ("the model draws random numbers even in eval mode (a Dropout built inside "
                "forward, or F.dropout(..., training=True)), so its outputs differ between two "
                "identical calls"), None
    # senders and receivers passed as two index vectors (graph_nets' GraphsTuple, a
    # hand-written scatter): two integer vectors of one length, not the batch's, into its rows
    edge_ends = [leaf.shape for leaf in array_leaves(batch.tree)
                 if leaf.ndim == 1 and leaf.dtype.kind in "iu" and leaf.size and
                 leaf.shape[0] != batch.size and leaf.min() >= 0 and leaf.max() < batch.size]
    for leaf in array_leaves(batch.tree):
        is_edge_list = leaf.ndim == 2 and leaf.shape[0] == 2 and leaf.dtype.kind in "iu" and \
            leaf.shape[1] != batch.size and leaf.size and leaf.max() < batch.size
        is_adjacency = leaf.ndim == 2 and leaf.shape == (batch.size, batch.size) and \
            leaf is not batch.x
        if is_edge_list or is_adjacency or edge_ends.count(leaf.shape) >= 2:
            return ("the inputs hold a graph (an edge list or an adjacency matrix): the rows are "
                    "nodes that exchange messages by design, not independent samples"), None
    return None, None


def _first_run(runner, batch, max_samples):
    """(samples used, model output on them): a slice of the batch, or the whole batch for a
    model that only accepts its own batch size."""
    n = max(1, min(batch.size, int(max_samples)))
    try:
        return n, runner.forward(batch.rows(range(n)), n, batch.length)[0]
    except ModelFailed as slice_error:
        if n == batch.size:
            raise ValueError(f"check_dependencies could not run the model on its inputs: "
                             f"{slice_error}") from None
    try:
        out = runner.forward(batch.rows(range(batch.size)), batch.size, batch.length)[0]
    except ModelFailed as error:
        raise ValueError(f"check_dependencies could not run the model on its inputs: {error}") \
            from None
    runner.chunk = batch.size
    return batch.size, out


def _per_sample(y, batch):
    """Targets flattened for the loss ((B * T,), as in ``cross_entropy(logits.view(-1, V),
    y.view(-1))``) put back as (B, T): the alignment is read per sample."""
    x = batch.x
    if y is not None and y.ndim == 1 and x.ndim >= 2 and y.size != x.shape[0] and \
            y.size % x.shape[0] == 0 and y.size // x.shape[0] >= 2:
        return y.reshape(x.shape[0], -1)
    return y


def _flattened_per_position(y, batch):
    """Whether the targets are one per position of a sequence, flattened as the loss takes
    them ((B * T,) for ``cross_entropy(logits.view(-1, V), y.view(-1))``): the model's
    output rows are then positions too, and are read folded back per sample. Sequences only,
    (B, T) ids or (B, T, F) features (a (B, F) float table has no positions), and no more
    positions than the inputs hold."""
    x = batch.x
    sequence = x.ndim == 3 or (x.ndim == 2 and x.dtype.kind in "iu")
    if y is None or y.ndim < 1 or not sequence or y.shape[0] == x.shape[0]:
        return False
    per_sample, left = divmod(y.shape[0], x.shape[0])
    return not left and 2 <= per_sample <= x.shape[1]


def _first_array(tree):
    leaves = array_leaves(tree)
    return leaves[0] if leaves else None
