"""PSEUDO_LABELS_ONE_CLASS: a per-element binary cross-entropy multiplied only by its own
targets (``run.observed.self_masked_targets``, ``monitor/self_masked_targets.py``).

Confidence-masked pseudo-labelling on one sigmoid output passes the confidence mask as the
target: ``mask = sigmoid(weak) >= 0.95``, ``(BCE(strong, mask) * mask).mean()``. Every
element the mask keeps has target 1 and every other is multiplied away, so the term only
ever says "positive": confident negatives are ignored instead of taught, and the unlabelled
data push the model towards the positive class (kekmodel/FixMatch-pytorch#11; the
maintainer: the target is ``pseudo_label.ge(0.5)``, the mask only weighs it). A hand-written
class-balanced BCE (``bce * y`` and ``bce * (1 - y)``) has another consumer of the loss and
is not read as this.
"""
from ..findings import Finding
from .context import observed_list
from .graph import rule

SELF_MASKED_MIN_STEPS = 2           # [design] read steps (of the first 3 recorded) showing it: a
                             # fixed twin's target and mask may coincide on one batch


@rule(produces="PSEUDO_LABELS_ONE_CLASS")
def pseudo_labels_one_class(ctx):
    rows = observed_list(ctx, "self_masked_targets")
    steps = sorted({row[0] for row in rows})
    if len(steps) < SELF_MASKED_MIN_STEPS:
        return None
    return Finding(
        code="PSEUDO_LABELS_ONE_CLASS", severity="warning", where="loss", step=steps[0],
        message="A binary cross-entropy with reduction='none' is multiplied only by its own "
                "targets (BCE(x, mask) * mask): every element it keeps has target 1 and "
                "every other is multiplied away, so this term only ever teaches the positive "
                "class. In confidence-masked pseudo-labelling the mask was passed as the "
                f"pseudo-label (seen on steps {steps}).",
        evidence={"steps": steps, "elements": rows[0][1]},
        fix="Take the pseudo-label from the side of 0.5 and the mask from the confidence: "
            "targets = (p >= 0.5).float(), mask = (torch.max(p, 1 - p) >= threshold)."
            "float(), loss = (BCE(strong, targets, reduction='none') * mask).mean().")
