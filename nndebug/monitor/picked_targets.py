"""The labels a hand-written log-likelihood picks, kept as the step's targets (torch).

A loss module (``F.cross_entropy``, ``nn.NLLLoss``) hands the monitor its targets. A
log-likelihood written by hand does not: ``log_softmax(logits).gather(-1, labels[..., None])``
is how a hand-written DPO, a Trainer's label smoother and many small language models score
their tokens. The labels are still there, saved by the ``gather`` for its backward, until the
backward frees them. The dependency probe (``probes/dependencies/watching.py``) reads a
step's targets against its inputs (TARGETS_IN_INPUTS, LABELS_MISALIGNED); without them a
causal language model scored on the very token it has just read (labels never shifted:
real-bug batches 145 and 162) is only a loss that falls.

So, on the first ``STRUCTURE_SCANS`` recorded steps whose loss no hook saw called with
targets, the loss graph's node types are looked at for a ``gather`` along the last axis of a
log-softmax (or of the ``log`` of a softmax). Only a loss that has one gets a backward watch
(``function_modes.BackwardWatch``): on the next ``STEPS_READ`` recorded steps the gathered
indices are read before the backward runs, and kept when they are integer labels with at
least two positions per row - ``(B, T)`` once the picked axis is dropped - the per-position
labels of a sequence model. A pick of one action per state (a policy gradient) is no
sequence and is left to ``policy_gradient_terms.py``. ``targets_at(step)`` hands them over.
"""
from .function_modes import BackwardWatch
from .graph_walks import nodes_under, saved_axis

STRUCTURE_SCANS = 2       # [design] first recorded steps (with no loss-call targets) whose
                          # graph is looked at; a loss without such a pick never gets the mode
STEPS_READ = 4            # [design] recorded steps read once a pick was seen: steps 1, 2 and
                          # 4 after a pick at step 0, so the probe's step (the first recorded
                          # after the warm-up, schedule.WARMUP_RECORDS) is among them
PICKS_PER_STEP = 4        # [design] picks kept per step (DPO: a chosen and a rejected batch)
PATH_DEPTH = 8            # [design] shape operations between the pick and the log-softmax
WALK_LIMIT = 4096         # [design] loss-graph nodes looked at per step

THROUGH = {"NegBackward0", "SliceBackward0", "SelectBackward0", "ViewBackward0",
           "UnsafeViewBackward0", "ReshapeAliasBackward0", "CloneBackward0", "ToCopyBackward0",
           "TransposeBackward0", "PermuteBackward0", "SqueezeBackward1", "UnsqueezeBackward0"}
"""Operations that move or negate log-probabilities without changing what they are."""


class PickedTargets(BackwardWatch):
    steps = STEPS_READ
    first_backward_only = True     # the step's loss; a second backward repeats its graph

    def __init__(self, adapter, on_error):
        super().__init__(adapter.framework == "torch", on_error)
        self.scans = 0
        self.picked = {}           # step -> [(B, T) integer labels], at most PICKS_PER_STEP

    def on_loss(self, step, loss, targets_seen):
        """A recorded step ended (its backward done): on the first STRUCTURE_SCANS steps whose
        loss came with no targets (``targets_seen``: a loss call with targets was seen), look
        at the graph's node types for a picked log-softmax."""
        if not self.enabled or self.wanted or self.scans >= STRUCTURE_SCANS or step is None \
                or targets_seen or getattr(loss, "grad_fn", None) is None:
            return
        self.scans += 1
        try:
            self.wanted = any(_is_pick_of_log_probabilities(node)
                              for node in nodes_under([loss.grad_fn], WALK_LIMIT))
        except Exception as error:        # a graph we cannot read: no mode, ever
            self.enabled = False
            self.on_error(error)

    def on_backward(self, step, loss):
        try:
            kept = []
            for node in nodes_under([loss.grad_fn], WALK_LIMIT):
                if len(kept) < PICKS_PER_STEP and _is_pick_of_log_probabilities(node):
                    labels = _sequence_labels(node)
                    if labels is not None:
                        kept.append(labels)
            if kept:
                self.picked[step] = kept
        except Exception as error:        # a graph we cannot read costs this step
            self.on_error(error)

    def targets_at(self, step):
        """The labels picked at ``step`` (a list, possibly empty)."""
        return self.picked.get(step, [])


def _is_pick_of_log_probabilities(node):
    """A ``gather`` whose source is, through THROUGH operations, a log-softmax or the log of
    a softmax (node types only: readable after the backward too)."""
    if type(node).__name__ != "GatherBackward0":
        return False
    source = node.next_functions[0][0] if node.next_functions else None
    for _ in range(PATH_DEPTH):
        name = type(source).__name__ if source is not None else None
        if name == "LogSoftmaxBackward0":
            return True
        if name == "LogBackward0":
            below = source.next_functions[0][0] if source.next_functions else None
            return type(below).__name__ == "SoftmaxBackward0"
        if name not in THROUGH or not source.next_functions:
            return False
        source = source.next_functions[0][0]
    return False


def _sequence_labels(gather):
    """The gathered indices as (B, T) labels, or None: the pick must run along the last axis,
    one entry per position (index size 1 there), with at least two positions per row."""
    index = gather._saved_index
    if index.dim() != 3 or index.dtype.is_floating_point or \
            saved_axis(gather._saved_dim, index.dim()) != 2 or index.shape[2] != 1 or \
            index.shape[1] < 2:
        return None
    return index[..., 0].detach().clone()
