"""LOSS_READS_UNMASKED_TOKENS: a masked-token loss that reads mostly positions whose input
shows the label (``run.observed.visible_targets``, ``monitor/visible_targets.py``).

A masked LM learns to fill in a [MASK] only from the positions the loss reads there. When
the unmasked tokens keep their labels, or the list of masked positions is one off from the
masks (a [CLS] put in front of the sentence after the masks were chosen), most of what
the loss reads is the input token itself: the model learns to copy, the training loss
looks excellent, and filling in masks is learnt from a fraction of the loss or not at all.
"""
from ..findings import Finding
from .context import observed_list
from .graph import rule

MASKED_LOSS_VISIBLE_SHARE = 0.5    # [design] at least half of the positions read show their
                                   # label in the input: a copy task, not a masked one. A
                                   # healthy masked LM (BERT's 80/10/10) shows it at ~10%;
                                   # the two reported slips at 85% (measured on
                                   # mlm_labels_keep_unmasked_tokens and
                                   # mlm_mask_positions_off_by_one, 15% masked)
MASKED_LOSS_CORRUPTION_SHARE = 0.5  # [design] one id (never a target) stands at half or more
                                    # of the read positions whose input differs from the
                                    # label: the corruption ([MASK]) id of a masked objective
MASKED_LOSS_MIN_HIDDEN = 8         # [design] read positions whose input differs from the
                                   # label, at the least, before an id is called the mask


def _masked_copy_rows(rows):
    """The rows where the loss reads visible labels of a masked objective."""
    found = []
    for step, read, visible, corruption, holding, hidden in rows:
        if hidden < MASKED_LOSS_MIN_HIDDEN or corruption < 0:
            continue
        if holding / hidden >= MASKED_LOSS_CORRUPTION_SHARE and \
                visible / read >= MASKED_LOSS_VISIBLE_SHARE:
            found.append((step, read, visible, corruption, holding, hidden))
    return found


@rule(produces="LOSS_READS_UNMASKED_TOKENS")
def loss_reads_unmasked_tokens(ctx):
    rows = _masked_copy_rows(observed_list(ctx, "visible_targets"))
    if not rows:
        return None
    step, read, visible, corruption, holding, hidden = rows[0]
    return Finding(
        code="LOSS_READS_UNMASKED_TOKENS", severity="warning", where="loss", step=step,
        message=f"The loss reads {read} positions and at {visible / read:.0%} of them the "
                f"input token IS the label; id {corruption} (never a label: the mask) stands "
                f"at {holding} of the {hidden} others. A masked objective is learnt at the "
                "masks: here the model is mostly taught to copy what it sees, the loss looks "
                "excellent, and filling in a mask is learnt from little of it.",
        evidence={"positions_read": read, "input_is_label": visible,
                  "corruption_id": corruption, "read_holding_corruption": holding,
                  "read_input_differs": hidden, "steps": sorted({row[0] for row in rows})},
        fix="Set the label to -100 (the loss's ignore_index) wherever the input is not "
            "masked: labels = torch.where(input_ids == mask_id, labels, -100); if special "
            "tokens ([CLS]) are put in front after the positions were chosen, shift the "
            "chosen positions with them.")
