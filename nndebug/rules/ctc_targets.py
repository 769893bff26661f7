"""CTC_TARGET_IS_BLANK: CTC target labels equal to the loss's blank id
(``run.observed.ctc_blank_targets``, ``monitor/ctc_blank_targets.py``).

torch's CTC keeps ``blank=0`` by default; label ids that start at 0 make the first label
and the blank one output. The loss drops blanks between labels, so a target holding that
label cannot be spelt, and torch does not complain. Any real label equal to the blank is
the bug (padding after ``target_lengths`` is not counted): no threshold to tune.
"""
from ..findings import Finding
from .context import observed_list
from .graph import rule


@rule(produces="CTC_TARGET_IS_BLANK")
def ctc_target_is_blank(ctx):
    rows = [row for row in observed_list(ctx, "ctc_blank_targets") if row[3] > 0]
    if not rows:
        return None
    step, blank, labels, as_blank = rows[0]
    return Finding(
        code="CTC_TARGET_IS_BLANK", severity="warning", where="loss", step=step,
        message=f"{as_blank} of the {labels} CTC target labels read are {blank}, the "
                f"loss's blank id: that label and 'no label here' are the same output, so "
                "the sequences holding it cannot be spelt and training pulls the blank "
                "around.",
        evidence={"blank": blank, "labels": labels, "labels_as_blank": as_blank,
                  "steps": sorted({row[0] for row in rows})},
        fix=f"Keep label ids off the blank: shift them by one (1..C-1 with blank={blank}) "
            "or pass blank= an id no label uses (e.g. C-1), with one more output class.")
