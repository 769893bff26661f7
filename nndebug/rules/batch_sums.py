"""BATCH_SUMMED_INSIDE_LOSS: the loss applies its saturating function (log-sigmoid,
sigmoid, softplus, tanh) to the sum or mean of the WHOLE batch, not to each sample's score
(``run.observed.squashed_batch_sums``, ``monitor/squashed_batch_sums.py``).

``-F.logsigmoid(torch.sum(u * (p - n)))`` scores the batch as one pair. Once that one sum is
large the log-sigmoid is flat: every pair's gradient vanishes together, those still ranked
the wrong way among them, and what is left pushes all users one way. The per-sample form
sums over the factors only (``dim=1``), applies the function to each pair, then averages.
Named from the graph alone: a saturating function of a whole batch's sum is no per-sample
loss (an RMSE's square root or a log of an MSE is not saturating and not counted).
"""
from ..findings import Finding
from .context import observed_list
from .graph import rule

# torch's backward node -> how the function is written
FUNCTIONS = {"LogSigmoidBackward0": "logsigmoid", "SigmoidBackward0": "sigmoid",
             "SoftplusBackward0": "softplus", "TanhBackward0": "tanh"}


@rule(produces="BATCH_SUMMED_INSIDE_LOSS", explains={"LOSS_PLATEAU"})
def batch_summed_inside_loss(ctx):
    rows = observed_list(ctx, "squashed_batch_sums")
    if not rows:
        return None
    step, operation, reduction, shape = rows[0]
    function = FUNCTIONS.get(operation, operation)
    shape_text = " x ".join(str(n) for n in shape)
    return Finding(
        code="BATCH_SUMMED_INSIDE_LOSS", severity="warning", where="loss", step=step,
        message=f"The loss takes {function} of the {reduction} of a whole {shape_text} "
                f"batch: the batch is scored as ONE sample. Once that one {reduction} is "
                f"large the {function} saturates and every sample's gradient vanishes "
                "together, the samples still scored the wrong way among them; the loss "
                "reaches zero while they stay wrong.",
        evidence={"function": function, "reduction": reduction, "shape": list(shape),
                  "steps": sorted({row[0] for row in rows})},
        fix=f"Reduce each sample on its own first (e.g. (u * (p - n)).sum(dim=1) for a BPR "
            f"score), apply {function} to each, then average over the batch: "
            "-F.logsigmoid(scores).mean().")
