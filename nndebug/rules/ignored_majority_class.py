"""A dense class-index loss told to ignore the class most of its pixels belong to.

IGNORE_INDEX_ON_MAJORITY_CLASS: a cross-entropy / NLL over per-pixel (or per-voxel) class
ids - targets of 2+ spatial dimensions, (N, H, W) against (N, C, H, W) scores - whose
``ignore_index`` is one of the model's own output classes (0 <= ignore_index < C) and is
the most frequent target value, at least half of the sampled targets, on every recorded
call that counted its targets, with 2+ other classes counted. The model keeps an output for
that class but no pixel of it ever reaches the loss: it learns to separate the other
classes and hands every pixel of the ignored one to whichever of them scores higher. The
training loss falls as a healthy run's does (the ignored pixels are not in it), so no
curve shows it; the configuration does.

Public report: "Question about semantic segmentation.",
https://github.com/facebookresearch/Mask2Former/issues/179 (``IGNORE_VALUE: 0`` on the
background of a 5-class set; "The network is not trained to segment the background since
IGNORE_VALUE is set to the background class").

What stays silent: an ignore value outside the outputs (255 on 21 classes, torch's -100);
an "unlabelled" id inside them that is a minority of the pixels (ADE20K's 0, about a tenth);
sequences (targets with one position axis: a language model ignoring its padding id 0,
however many of its positions are padding); an ignore value that leaves one class counted
(IGNORE_INDEX_LEAVES_ONE_CLASS names that).

Read from the recorded loss calls (``run.observed.loss_calls``: shapes, ``ignore_index``
and the target counts of the first recorded calls, ``monitor/loss_capture.py``); nothing is
observed for it.
"""
from ..findings import Finding
from .context import CLASS_INDEX_LOSSES, judged_loss_calls
from .graph import rule

IGNORED_MAJORITY_CALLS = 3      # [design] recorded calls with target counts needed (the number
                                # IGNORE_INDEX_LEAVES_ONE_CLASS asks for)
IGNORED_MAJORITY_SHARE = 0.5    # [design] the ignored class holds at least half the sampled
                                # targets on every counted call: "most of the pixels"
IGNORED_MAJORITY_OTHERS = 2     # [design] other classes counted (one left is the other rule's)
DENSE_TARGET_DIMS = 3           # [design] (N, H, W) or more: per-pixel labels, not sequences


def _ignored_share(call):
    """(share of the sampled targets equal to ignore_index, other classes counted), or None
    when the call does not say."""
    counts, ignored = call.target_counts, call.ignore_index
    if counts is None or ignored is None or not 0 <= ignored < len(counts):
        return None
    total = sum(counts)
    if not total:
        return None
    others = sum(1 for c, n in enumerate(counts) if n and c != ignored)
    return counts[ignored] / total, others


@rule(produces="IGNORE_INDEX_ON_MAJORITY_CLASS", reads={"IGNORE_INDEX_LEAVES_ONE_CLASS"})
def ignore_index_on_majority_class(ctx):
    if "IGNORE_INDEX_LEAVES_ONE_CLASS" in ctx.found:
        return None
    calls = judged_loss_calls(ctx, CLASS_INDEX_LOSSES)
    counted = [c for c in calls if c.target_counts is not None]
    if len(counted) < IGNORED_MAJORITY_CALLS:
        return None
    label = counted[0].ignore_index
    if label is None or any(c.ignore_index != label for c in calls):
        return None
    for call in calls:
        shape, target = tuple(call.output_shape or ()), tuple(call.target_shape or ())
        if len(target) < DENSE_TARGET_DIMS or len(shape) != len(target) + 1 \
                or not 0 <= label < shape[1]:
            return None          # not per-pixel ids, or the ignored value is no output class
    read = [_ignored_share(c) for c in counted]
    if any(r is None for r in read):
        return None
    if any(share < IGNORED_MAJORITY_SHARE or others < IGNORED_MAJORITY_OTHERS
           for share, others in read):
        return None
    if any(c.target_mode is not None and int(c.target_mode) != label for c in counted):
        return None
    shares = [round(float(s), 3) for s, _ in read]
    loss, classes = counted[0].loss, int(calls[0].output_shape[1])
    return Finding(
        code="IGNORE_INDEX_ON_MAJORITY_CLASS", severity="warning", where=loss,
        step=int(counted[0].step),
        message=f"{loss} ignores the target {label} (its ignore_index), but {label} is one of "
                f"the model's {classes} output classes and the most frequent label: "
                f"{min(shares):.0%}-{max(shares):.0%} of the sampled pixel targets on "
                f"{len(counted)} recorded calls. No pixel of class {label} ever reaches the "
                f"loss, so the model never learns to predict it and hands those pixels to "
                f"the other classes; the training loss looks healthy because they are left "
                f"out of it.",
        evidence={"loss": loss, "ignore_index": label, "output_classes": classes,
                  "ignored_shares": shares, "calls": len(counted)},
        fix=f"If {label} is a real class (background), train on it: give the loss an "
            f"ignore_index no class uses (255, or torch's default -100) and keep "
            f"{label} for the class; to down-weigh a dominant background use class weights "
            f"(CrossEntropyLoss(weight=...)) rather than ignoring it. If {label} really "
            f"means 'unlabelled', drop its output column and shift the class ids.")
