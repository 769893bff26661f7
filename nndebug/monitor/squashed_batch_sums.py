"""A sigmoid-like function taken of the whole batch's sum inside the loss
(``run.observed.squashed_batch_sums``; BATCH_SUMMED_INSIDE_LOSS,
``nndebug.rules.batch_sums``).

A pairwise or likelihood loss applies its saturating function to each sample's score and
then averages: BPR is ``-logsigmoid((u * (p - n)).sum(1)).mean()``. Sum the scores of the
whole batch first - ``F.logsigmoid(torch.sum(u * (p - n)))``, the axis left out of the
sum - and the batch becomes one sample: once that one sum is large the log-sigmoid
saturates and every pair's gradient vanishes together, the pairs still ranked the wrong
way among them. Nothing fails; the loss reaches zero and the ranking stays poor.

In torch's graph that is a saturating node (``LogSigmoidBackward0``, ``SigmoidBackward0``,
``SoftplusBackward0``, ``TanhBackward0``) whose input is, through a sign or a constant
factor only, a reduction of a whole tensor to one number (``SumBackward0``,
``MeanBackward0``) whose input had two or more rows. Its sizes stay in the graph after
backward (``_saved_self_sym_sizes``), so the walk runs when the step's loss is handed
over. A square root or a log of a batch mean (an RMSE loss, a log-MSE) does not saturate
and is not counted; neither is a reduction of a parameter alone (a learned gate).

The search (``find_squashed_batch_sums``) reads the nodes of the shared walk of the loss's
graph (``graph_walks.LossGraph``), on on the first ``WALK_STEPS`` recorded steps
only: no per-step cost after them.
"""
from .graph_walks import FirstStepsReader

WALK_STEPS = 3            # [design] recorded steps walked: the loss's graph has the same
                          # shape on every step of an ordinary loop
FOUND_PER_STEP = 4        # [design] saturating nodes kept per step
SATURATING = {"LogSigmoidBackward0", "SigmoidBackward0", "SoftplusBackward0", "TanhBackward0"}
WHOLE_REDUCTIONS = {"SumBackward0": "sum", "MeanBackward0": "mean"}
# a sign or a constant factor between the reduction and the squashing function (a product
# or quotient counts only with one computed operand: the other is a constant)
PASS_THROUGH = {"NegBackward0", "MulBackward0", "MulBackward1", "DivBackward0", "DivBackward1"}
LOOK_DOWN = 4             # [design] such nodes followed down at most
LEAF = "AccumulateGrad"


class SquashedBatchSums(FirstStepsReader):
    """A reader of ``graph_walks.LossGraph``."""
    steps = WALK_STEPS

    def keep(self, step, nodes):
        self.observed.squashed_batch_sums.extend(
            (step, *found) for found in find_squashed_batch_sums(nodes))


def find_squashed_batch_sums(nodes):
    """[(squashing operation, "sum" or "mean", reduced shape)] in ``nodes`` (module doc)."""
    found = []
    for node in nodes:
        if type(node).__name__ not in SATURATING or len(found) >= FOUND_PER_STEP:
            continue
        reduction = _whole_reduction_below(node)
        if reduction is not None:
            name, shape = reduction
            found.append((type(node).__name__, name, shape))
    return found


def _whole_reduction_below(node):
    """(kind, reduced shape) of the whole-tensor reduction feeding ``node`` through signs
    and constant factors, when it reduced two or more rows of something computed (not a
    parameter alone); else None."""
    for _ in range(LOOK_DOWN):
        children = [child for child, _ in getattr(node, "next_functions", ())
                    if child is not None]
        if len(children) != 1:
            return None
        node = children[0]
        name = type(node).__name__
        if name in WHOLE_REDUCTIONS:
            shape = tuple(int(n) for n in getattr(node, "_saved_self_sym_sizes", ()))
            below = [child for child, _ in node.next_functions if child is not None]
            if len(shape) >= 1 and shape[0] >= 2 and below and \
                    type(below[0]).__name__ != LEAF:
                return WHOLE_REDUCTIONS[name], list(shape)
            return None
        if name not in PASS_THROUGH:
            return None
    return None
