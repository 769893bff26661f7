"""TARGET_IDS_OFFSET: a class-index loss (cross-entropy, NLL) whose targets never name the
lowest class ids: ids 0..k-1 of the head's columns are never a target, for k a good share of
them, while higher ids are.

Label ids come out of a pipeline, and an offset in it moves every id up: two labelled sets
merged with the offset for the second added to the whole concatenation (``torch.cat([a,
b]) + a.max() + 1``: both sets land on the same ids, their classes collide), ids taken
from a column that starts at 5, or a 1-based encoding shifted once more. torch checks only
that every id is below the number of columns, so it trains: the lowest columns are pushed
down and never used, and whatever the offset merged is learnt as one class. Public report:
"Waht's the meaning of this line?", https://github.com/DagnyT/hardnet/issues/25 (the
merge loop's ``labels = torch.cat([labels, datasets[i][1]]) + torch.max(labels) + 1``;
the author: "yes, it's a bug").

Read from what reached the loss (``run.observed.loss_calls``: the class axis of the
output, the smallest and largest target id of each recorded call), after enough targets
that every class would have shown up. The mirror image, ids that never reach the top
columns, is OUTPUT_WIDER_THAN_CLASSES (the two cannot both hold: that rule needs the
highest id below a quarter of the columns, this one the lowest above it).

(real-bug batch 156) Class-incremental training looks the same from the loss: a head grown
from 5 to 10 outputs (the old rows copied) trains on the new task's digits 5-9 only. Its
columns 0-4 are the classes learned before, and their rows of the output layer were trained
weights when watching started while the new rows were fresh (norms 1.55-2.18 against
0.54-0.71). ``run.observed.output_row_norms`` keeps those norms; when the never-named
columns' rows differ from the named ones' by TRAINED_ROWS_RATIO or more (median against
median), the columns were learned before, not skipped by an offset.
"""
import math

from ..findings import Finding
from .context import (CLASS_INDEX_LOSSES, class_id_calls, judged_loss_calls, median,
                      observed_list)
from .graph import rule

UNUSED_LOW_SHARE = 0.25      # [design] the lowest id named sits at or above a quarter of the
                             # columns: a byte-level model on text starts at 10 of 256 (the
                             # newline), a 1-based label set at 1 of C + 1 (one dead column,
                             # harmless); a merge offset by a source's class count at half
MIN_UNUSED_LOW_IDS = 2       # [design] ids never named below the lowest (a 2- or 3-column
                             # head with one class absent is TARGETS_ALL_ONE_CLASS ground)
TRAINED_ROWS_RATIO = 1.5     # [measured] median row norm of the never-named columns over the
                             # named ones', either way: 2.6 for a head grown with its old
                             # rows copied (batch 156); rows drawn by one initialiser agree
                             # within a few percent at any width above ten
MIN_OFFSET_CALLS = 3         # [design] recorded loss calls before a verdict
OFFSET_TARGETS_PER_COLUMN = 2   # [design] targets seen at least twice the number of
                                # columns: enough that a class the data holds shows up


def unused_low_ids(calls):
    """(columns, lowest id named, highest id named, targets seen) when the targets never
    name ids 0..lowest-1 and lowest is at least UNUSED_LOW_SHARE of the columns; else None.
    Calls whose targets reach below 0 (an ignore_index of -100) hide the lowest real id:
    any such call leaves the verdict open."""
    found = class_id_calls(calls, MIN_OFFSET_CALLS)
    if found is None:
        return None
    columns, seen = found
    lowest = min(c.target_min for c in calls)
    highest = max(c.target_max for c in calls)
    if not (lowest == lowest and highest == highest) or lowest < 0 or highest >= columns:
        return None
    lowest, highest = int(lowest), int(highest)
    if lowest < max(MIN_UNUSED_LOW_IDS, UNUSED_LOW_SHARE * columns) or highest <= lowest \
            or seen < OFFSET_TARGETS_PER_COLUMN * columns:
        return None
    return columns, lowest, highest, seen


def _rows_learned_before(ctx, columns, lowest):
    """Whether the output layer's rows of columns 0..lowest-1 differed in size from the
    others' when watching started (by TRAINED_ROWS_RATIO, median against median)."""
    rows = observed_list(ctx, "output_row_norms")
    if not rows or len(rows[0][1]) != columns:
        return False
    norms = rows[0][1]
    low, high = median(norms[:lowest]), median(norms[lowest:])
    if not (low > 0 and high > 0 and math.isfinite(low) and math.isfinite(high)):
        return False
    return max(low / high, high / low) >= TRAINED_ROWS_RATIO


@rule(produces="TARGET_IDS_OFFSET")
def target_ids_offset(ctx):
    calls = judged_loss_calls(ctx, CLASS_INDEX_LOSSES)
    found = unused_low_ids(calls)
    if found is None:
        return None
    columns, lowest, highest, seen = found
    if _rows_learned_before(ctx, columns, lowest):
        return None
    loss = calls[0].loss
    return Finding(
        code="TARGET_IDS_OFFSET", severity="warning", where=loss, step=calls[0].step,
        message=f"The targets of {loss} never name a class id below {lowest}: in {seen} "
                f"targets over {len(calls)} recorded calls the ids run from {lowest} to "
                f"{highest}, so columns 0-{lowest - 1} of the {columns} the model scores are "
                "never a target. The label ids were most likely offset on their way in (an "
                "offset meant for one merged source added to all of them, which also makes "
                "the sources' classes collide on the same ids; ids taken from a column that "
                "does not start at 0).",
        evidence={"loss": loss, "output_columns": columns, "lowest_id": lowest,
                  "highest_id": highest, "targets_seen": seen, "calls": len(calls),
                  "unused_low_share": UNUSED_LOW_SHARE},
        fix="Print the label ids where they are built: they should run from 0 to C-1. When "
            "merging labelled sets, shift only the newly added set's ids (torch.cat([labels, "
            "new + labels.max() + 1])), and map other encodings to 0..C-1 (a dict over the "
            "sorted labels).")
