"""KL_DIV_MEAN_OVER_CLASSES: a KL-divergence loss (``KLDivLoss``, ``kl_div``) reduced with
'mean', which divides the sum over the classes by the number of classes as well as by the
batch: the loss and its gradient are C times smaller than the KL divergence, so a
distillation term weighed against a cross-entropy (or alone, with SGD) barely trains.

The KL divergence sums over the distribution's support; 'batchmean' (a sum divided by the
batch size) is the definition, and torch's docs say 'mean' will behave like it in a later
release. Read from what reached the loss (``run.observed.loss_calls``: the loss's name, its
reduction and the output's shape), and from torch's own warning when the call was a
function the monitor did not see (``run.observed.warnings``).
"""
from ..findings import Finding
from .context import judged_loss_calls, observed_list
from .graph import rule

KL_DIVERGENCE_LOSSES = {"KLDivLoss", "kl_div"}
MIN_SUPPORT = 2              # [design] a distribution over at least two classes: with one
                             # column 'mean' and 'batchmean' agree
# the first words of the warning torch's F.kl_div raises for reduction='mean'
TORCH_MEAN_WARNING = "reduction: 'mean' divides the total loss by both the batch size and " \
                     "the support size"


def _support(call):
    shape = call.output_shape or ()
    return int(shape[-1]) if len(shape) >= 2 else 1


def mean_reduced_calls(calls):
    """The KL loss calls reduced with 'mean' over at least MIN_SUPPORT classes."""
    return [c for c in calls if c.reduction == "mean" and _support(c) >= MIN_SUPPORT]


def warned_steps(warnings):
    """The warnings in which torch said a KL divergence was reduced with 'mean'."""
    return [w for w in warnings if TORCH_MEAN_WARNING in (w.message or "")]


@rule(produces="KL_DIV_MEAN_OVER_CLASSES",
      explains={"LOSS_PLATEAU", "LOSS_AT_CHANCE"})
def kl_div_mean_over_classes(ctx):
    calls = mean_reduced_calls(judged_loss_calls(ctx, KL_DIVERGENCE_LOSSES))
    warned = warned_steps(observed_list(ctx, "warnings"))
    if not calls and not warned:
        return None
    first = calls[0] if calls else None
    where = first.loss if first else (warned[0].where or "kl_div")
    step = first.step if first else warned[0].step
    support = _support(first) if first else None
    scale = f"{support} times" if support else "as many times as there are classes"
    return Finding(
        code="KL_DIV_MEAN_OVER_CLASSES", severity="warning", where=where, step=step,
        message=f"{where} is reduced with 'mean': the sum over the classes is divided by "
                f"the number of classes as well as by the batch, so the loss and its "
                f"gradient are {scale} smaller than the KL divergence. A distillation term "
                "weighed against a cross-entropy, or trained alone with SGD, then barely "
                "moves the model.",
        evidence={"loss": where, "reduction": "mean", "classes": support,
                  "calls": len(calls), "framework_warned": bool(warned)},
        fix="Use reduction='batchmean' (KLDivLoss(reduction='batchmean'), "
            "F.kl_div(..., reduction='batchmean')): the KL divergence summed over the "
            "classes and averaged over the batch. For (batch, time, classes) outputs, "
            "divide a 'sum' by batch x time instead.")
