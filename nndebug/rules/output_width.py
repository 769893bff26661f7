"""OUTPUT_WIDER_THAN_CLASSES: a class-index loss (cross-entropy, NLL) scored more classes
than its targets ever name: the head was built with the wrong size (the hidden size, a
pretrained model's 1000 classes) where the number of classes goes.

torch checks only that every target id is below the number of columns, so a head four
times too wide trains without a complaint: the extra columns take probability away until
the model learns to push them down, the loss starts at log(columns) instead of
log(classes), and every prediction is made over classes that do not exist. Read from what
reached the loss (``run.observed.loss_calls``: the output's class axis, the largest target
id of each recorded call), after enough targets that every class would have shown up.
"""
from ..findings import Finding
from .context import CLASS_INDEX_LOSSES, class_id_calls, judged_loss_calls
from .contrastive_targets import positive_first_contrast
from .graph import rule

USED_SHARE = 0.25            # [design] the targets reach at most a quarter of the columns: a
                             # byte-level model on English text reaches half of its 256
                             # (ids up to 126), COCO's 91 ids hold 80 classes
MIN_WIDTH_CALLS = 3          # [design] recorded loss calls before a verdict
TARGETS_PER_COLUMN = 2       # [design] targets seen at least twice the number of columns:
                             # enough that a class the data holds shows up


def unused_columns(calls):
    """(columns, classes named, targets seen) when the targets name at most USED_SHARE of
    the output's columns; else None."""
    found = class_id_calls(calls, MIN_WIDTH_CALLS)
    if found is None:
        return None
    columns, seen = found
    highest = max(c.target_max for c in calls)
    if not highest == highest or highest < 0:           # NaN, or no id at all
        return None
    named = int(highest) + 1
    if named > USED_SHARE * columns or seen < TARGETS_PER_COLUMN * columns:
        return None
    return columns, named, seen


@rule(produces="OUTPUT_WIDER_THAN_CLASSES")
def output_wider_than_classes(ctx):
    calls = judged_loss_calls(ctx, CLASS_INDEX_LOSSES)
    found = unused_columns(calls)
    if found is None or positive_first_contrast(ctx, calls):
        return None            # (InfoNCE's positive-first row is not a head: contrastive_targets)
    columns, named, seen = found
    loss = calls[0].loss
    return Finding(
        code="OUTPUT_WIDER_THAN_CLASSES", severity="warning", where=loss, step=calls[0].step,
        message=f"The model scores {columns} classes, but in {seen} targets over "
                f"{len(calls)} recorded calls of {loss} no id was above {named - 1}: "
                f"{columns - named} of its {columns} columns are classes the data never "
                "names. The head was most likely built with another size (a hidden size, a "
                "pretrained model's class count) where the number of classes goes; it "
                "trains without an error because every target id is below the width.",
        evidence={"loss": loss, "output_columns": columns, "classes_named": named,
                  "targets_seen": seen, "calls": len(calls), "used_share": USED_SHARE},
        fix=f"Build the last layer with as many outputs as the task has classes "
            f"({named} if the ids run from 0), e.g. nn.Linear(hidden, num_classes), and check "
            "the config key passed to it.")
