"""CTC_LABEL_BEYOND_CLASSES and CTC_ALIGNMENTS_IMPOSSIBLE: what the first CTC loss calls
asked for (``run.observed.ctc_alignments``, ``monitor/ctc_alignments.py``; real-bug batch 89).

CTC_LABEL_BEYOND_CLASSES: a target label id at or beyond the scores' class count (or below
0). torch's CPU CTC does not check it: the label reads a log-probability past its row, the
loss of its lines is garbage or NaN. Any such label is the bug (a head sized from the
largest label, one class short once the blank is counted): no threshold.

CTC_ALIGNMENTS_IMPOSSIBLE: lines whose input length is under the frames their target needs
(its labels, plus a blank between each pair of equal labels in a row). No alignment spells
them: their loss is infinite, or 0 with no gradient under ``zero_infinity=True``, which then
hides them and reports a loss that falls towards 0. A few such lines in a noisy corpus are
what ``zero_infinity`` is for; a large share of every batch is a model that makes too few
frames (a front end striding too far) or lengths given wrong.
"""
from ..findings import Finding
from .context import observed_list
from .graph import rule

IMPOSSIBLE_LINES_SHARE = 0.10   # [design] a tenth of the lines read: a few bad transcripts
                                # (the noise zero_infinity guards against) stay under it;
                                # a front end striding too far makes most lines so (0.5-0.9
                                # in batch 89's case)
NAN_SYMPTOMS = {"NAN_LOSS", "NAN_GRADIENTS", "NAN_BORN_IN_FORWARD", "NAN_BORN_IN_BACKWARD",
                "EXPLODING_GRADIENTS", "LOSS_DIVERGING", "LOSS_PLATEAU", "LOSS_OSCILLATING"}


def _rows(ctx):
    return [row for row in observed_list(ctx, "ctc_alignments") if len(row) >= 7]


@rule(produces="CTC_LABEL_BEYOND_CLASSES", explains=NAN_SYMPTOMS)
def ctc_label_beyond_classes(ctx):
    rows = [row for row in _rows(ctx) if row[6] > 0]
    if not rows:
        return None
    step, classes = rows[0][0], rows[0][1]
    labels = sum(row[5] for row in rows)
    beyond = sum(row[6] for row in rows)
    return Finding(
        code="CTC_LABEL_BEYOND_CLASSES", severity="error", where="loss", step=step,
        message=f"{beyond} of the {labels} CTC target labels read are outside 0..{classes - 1}, "
                f"the {classes} classes of the scores: torch does not check them, and each "
                "reads a log-probability past its row, so the loss of their lines is "
                "garbage (or NaN).",
        evidence={"classes": classes, "labels": labels, "labels_beyond": beyond,
                  "steps": sorted({row[0] for row in rows})},
        fix="Give the output layer one class per label plus the blank (largest label + 1 "
            "when the labels start at 1 and the blank is 0).")


@rule(produces="CTC_ALIGNMENTS_IMPOSSIBLE", explains={"LOSS_PLATEAU", "NAN_LOSS"})
def ctc_alignments_impossible(ctx):
    rows = _rows(ctx)
    lines = sum(row[3] for row in rows)
    short = sum(row[4] for row in rows)
    if not lines or short < IMPOSSIBLE_LINES_SHARE * lines:
        return None
    zeroed = any(row[2] for row in rows)
    first = next(row for row in rows if row[4] > 0)
    hidden = ("zero_infinity=True turns each of their losses into 0 with no gradient, so "
              "the reported loss falls while they are never learned" if zeroed else
              "their loss is infinite")
    return Finding(
        code="CTC_ALIGNMENTS_IMPOSSIBLE", severity="warning", where="loss", step=first[0],
        message=f"{short} of the {lines} lines read by the CTC loss have fewer frames "
                f"(input_lengths) than their targets need (one per label, and a blank "
                f"between equal labels): no alignment can spell them, and {hidden}.",
        evidence={"lines": lines, "too_few_frames": short, "share": short / lines,
                  "zero_infinity": zeroed, "steps": [row[0] for row in rows]},
        fix="Make at least as many frames as each target needs: a smaller time stride or "
            "pooling in the front end, or input_lengths computed from the output frames; "
            "keep zero_infinity for the odd bad sample only.")
