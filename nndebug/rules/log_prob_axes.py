"""LOG_PROBS_NORMALISED_OVER_BATCH: the log-probabilities given to an NLL loss were normalised
over the batch axis, not over the classes (real-bug batch 97).

NLLLoss reads input[n, target[n]] as the log-probability of sample n's class, so exp of its
(N, C, ...) input must sum to 1 over the class axis (dim 1). ``F.softmax(scores)`` without
``dim`` on a 3-D (batch, time, vocab) tensor takes PyTorch's implicit dim 0 - the batch (a
port from TensorFlow, whose softmax uses the last axis, meets this) - and so does an explicit
``dim=0`` written for one unbatched vector. The sums then hold over the batch and not over the
classes: each sample's 'probabilities' depend on the other samples of the batch, and the
model is trained to spread probability between samples. The axis is measured on the first
calls' inputs (``monitor/log_prob_axes.py``).

Left alone: a square (N, N) input - a similarity matrix, where normalising each column over
the batch is what a contrastive loss over the other samples means.
"""
from ..findings import Finding
from .context import (LOG_PROBS_MISS_ONE, LOG_PROBS_SUM_TO_ONE, MIN_MEASURED_NLL_CALLS,
                      NLL_LOSSES, fmt, judged_loss_calls)
from .graph import rule


def _over_batch(call):
    """Whether this call's input sums to 1 over the batch axis and not over the classes."""
    if call.class_mass_error is None or call.batch_mass_error is None:
        return None
    shape = call.output_shape
    if len(shape) == 2 and shape[0] == shape[1]:
        return None               # a similarity matrix: columns over the batch are classes
    return call.batch_mass_error < LOG_PROBS_SUM_TO_ONE and \
        call.class_mass_error > LOG_PROBS_MISS_ONE


@rule(produces="LOG_PROBS_NORMALISED_OVER_BATCH",
      explains={"LOSS_PLATEAU", "LOSS_AT_CHANCE", "LOSS_DIVERGING"})
def log_probs_normalised_over_batch(ctx):
    calls = [c for c in judged_loss_calls(ctx, NLL_LOSSES) if _over_batch(c) is not None]
    if len(calls) < MIN_MEASURED_NLL_CALLS or not all(_over_batch(c) for c in calls):
        return None
    first = calls[0]
    class_error = min(c.class_mass_error for c in calls)
    batch_error = max(c.batch_mass_error for c in calls)
    return Finding(
        code="LOG_PROBS_NORMALISED_OVER_BATCH", severity="error", where=first.loss,
        step=first.step,
        message=f"{first.loss} got log-probabilities of shape {tuple(first.output_shape)} that "
                f"were normalised over the batch (dim 0), not over the classes (dim 1): over "
                f"{len(calls)} measured calls their exp sums to 1 along dim 0 within "
                f"{fmt(batch_error)} but misses 1 along the class axis by {fmt(class_error)} "
                f"or more. Each sample's probabilities then depend on the other samples of "
                f"the batch, and training spreads probability between samples instead of "
                f"between classes: a softmax/log_softmax without dim (PyTorch picks dim 0 for "
                f"a 3-D tensor, where TensorFlow would take the last axis), or dim=0 written "
                f"for one unbatched vector.",
        evidence={"loss": first.loss, "shape": tuple(first.output_shape),
                  "calls": len(calls), "class_mass_error": class_error,
                  "batch_mass_error": batch_error},
        fix="Name the class axis: F.log_softmax(scores, dim=-1) for (batch, ..., classes) "
            "scores (then move the classes to dim 1 for NLLLoss), or give the raw scores to "
            "F.cross_entropy, which normalises over dim 1 itself.")
