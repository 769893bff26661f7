"""VALIDATION_CLASSES_UNSEEN: validation never improved, and the training targets never
name a large share of the classes the model scores: the validation rows are of classes the
model was never trained on.

A dataset listed folder by folder (``ImageFolder``, a sorted file list) is sorted by class;
split by position without shuffling (``indices[:split]`` to train, ``indices[split:]`` to
validate) each part holds other classes. The model learns its training classes and scores
every validation row as one of them: the validation loss climbs while the training loss
falls, and validation accuracy stays at zero. A filter that drops classes from the training
list only (a class whose files failed to load, a minimum-count cut applied to one split)
looks the same.

Read from what reached the training loss (``run.observed.loss_calls``: the class axis of a
class-index loss and the ids counted in each recorded call's targets) once
VALIDATION_NEVER_IMPROVED holds. A head with a few spare columns on a run whose validation
improves stays silent (OUTPUT_WIDER_THAN_CLASSES judges the width on its own), as does a
validation that never improved while every class was trained on (the classes numbered
differently, another preprocessing: VALIDATION_NEVER_IMPROVED says so).
"""
from ..findings import Finding
from .context import CLASS_INDEX_LOSSES, class_id_calls, judged_loss_calls
from .graph import rule

UNSEEN_MIN_CALLS = 3          # [design] recorded loss calls before a verdict
UNSEEN_TARGETS_PER_CLASS = 4  # [design] targets seen at least four times the number of
                              # columns: a class the training data holds shows up (a class
                              # at a tenth of its share is missed by chance under 2% of the
                              # time at that count)
UNSEEN_SHARE = 0.2            # [design] at least a fifth of the columns (and 2 of them) never
                              # named by a training target: a class missing from a sample
                              # by chance is one, not a fifth
UNSEEN_MIN_COLUMNS = 2        # [design] classes never named, at least


def unseen_classes(calls):
    """(columns, ids never named, targets counted) when the training targets of these class-
    index loss calls leave UNSEEN_SHARE of the columns unnamed; else None."""
    found = class_id_calls(calls, UNSEEN_MIN_CALLS)
    if found is None:
        return None
    columns, _ = found
    if columns < 3:
        return None
    counted = [c.target_counts for c in calls if c.target_counts is not None]
    seen = sum(sum(counts) for counts in counted)
    if len(counted) < UNSEEN_MIN_CALLS or seen < UNSEEN_TARGETS_PER_CLASS * columns:
        return None                     # the ids counted (a sample of each call's targets)
    named = set()
    for counts in counted:
        named.update(i for i, n in enumerate(counts) if n)
    unseen = [i for i in range(columns) if i not in named]
    if len(unseen) < max(UNSEEN_MIN_COLUMNS, UNSEEN_SHARE * columns):
        return None
    return columns, unseen, seen


@rule(produces="VALIDATION_CLASSES_UNSEEN", reads={"VALIDATION_NEVER_IMPROVED"},
      explains={"VALIDATION_NEVER_IMPROVED", "OVERFITTING"})
def validation_classes_unseen(ctx):
    gap = ctx.found.get("VALIDATION_NEVER_IMPROVED")
    if not gap:
        return None
    calls = judged_loss_calls(ctx, CLASS_INDEX_LOSSES)
    found = unseen_classes(calls)
    if found is None:
        return None
    columns, unseen, seen = found
    listed = ", ".join(str(i) for i in unseen[:12]) + (" ..." if len(unseen) > 12 else "")
    return Finding(
        code="VALIDATION_CLASSES_UNSEEN", severity="warning", where=calls[0].loss,
        step=calls[0].step,
        message=f"Validation never improved while the training loss fell, and in {seen} "
                f"training targets counted over {len(calls)} recorded calls of {calls[0].loss}, "
                f"{len(unseen)} of the model's {columns} classes never appeared ({listed}): "
                "the validation rows are most likely of classes the model never trains on. "
                "A class-sorted list (a folder per class) split by position without "
                "shuffling gives each part other classes.",
        evidence={"output_columns": columns, "unseen_classes": unseen[:64],
                  "targets_seen": seen, "calls": len(calls)},
        fix="Shuffle the indices before splitting (or split per class: a stratified split) "
            "so that every class is in both parts; check that both splits hold every "
            "class.")
