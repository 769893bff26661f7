"""PADDING_PREDICTS_LABEL: in every training batch read, the rows that hold padding and the
rows that do not carry disjoint labels (``run.observed.class_only_padding``,
``monitor/class_only_padding.py``).

Short clips padded to the input length are harmless when every class has some: the
padding then says little about the label. When only one class is ever padded - detections
cut around the call and filled with silence, against background clips cut at full length -
the padding alone answers the question, and a model learns it first: the training loss
(and a validation split built the same way) falls to zero while the model has learned
"silence at the end means a call". Nothing in the loss curve shows it, so the finding does
not wait for poor learning: the split of the labels, in every batch read, is the evidence.
Public report: "make zero_pad_detections also randomly pad the 'no buow' class",
https://github.com/conservationtechlab/whoot/issues/55.
"""
from ..findings import Finding
from .context import observed_list
from .graph import rule

PAD_SPLIT_MIN_BATCHES = 2   # [design] training batches read before a verdict
PAD_SPLIT_MIN_ROWS = 4      # [design] padded rows, and unpadded rows, each batch must hold:
                            # a batch that is (almost) all padded or all unpadded says
                            # nothing about the labels


def split_batch(row):
    """Whether one batch's row holds enough padded and unpadded rows to say anything."""
    return row[2] >= PAD_SPLIT_MIN_ROWS and row[1] - row[2] >= PAD_SPLIT_MIN_ROWS


def labels_on_both_sides(row):
    """Whether a batch's padded and unpadded rows share a label: the finding is ruled out."""
    return bool(set(row[3]) & set(row[4]))


@rule(produces="PADDING_PREDICTS_LABEL")
def padding_predicts_label(ctx):
    rows = [row for row in observed_list(ctx, "class_only_padding") if split_batch(row)]
    if len(rows) < PAD_SPLIT_MIN_BATCHES:
        return None
    if any(labels_on_both_sides(row) for row in rows):
        return None
    padded_labels = sorted(set().union(*(row[3] for row in rows)))
    other_labels = sorted(set().union(*(row[4] for row in rows)))
    if set(padded_labels) & set(other_labels):
        return None                       # a label padded in one batch, not in another
    padded, read = sum(row[2] for row in rows), sum(row[1] for row in rows)
    return Finding(
        code="PADDING_PREDICTS_LABEL", severity="warning", where="inputs",
        step=rows[0][0],
        message=f"In each of the {len(rows)} training batches read, the {padded} rows that end "
                f"(or start) in padding - positions of one constant value along the last axis "
                f"- all have label {_labels(padded_labels)}, and none of the other "
                f"{read - padded} rows has: the padding alone tells the classes apart. A model "
                "learns that first (the training loss falls to zero) and answers by chance on "
                "inputs that are never padded, such as whole recordings.",
        evidence={"rows": read, "padded_rows": padded, "padded_labels": padded_labels,
                  "unpadded_labels": other_labels, "steps": [row[0] for row in rows]},
        fix="Cut every class's clips the same way: widen the short clips from the recording "
            "around them to the input length (window expansion), or pad clips of every class "
            "alike, or mask the padding out of the model's input.")


def _labels(labels):
    return str(labels[0]) if len(labels) == 1 else "in " + str(labels)
