"""SOFT_TARGETS_DISAGREE_WITH_LABELS: a distillation loss's soft targets give their highest
probability to the batch's label no more often than a guess, late in the run
(``run.observed.soft_target_agreement``, ``monitor/soft_target_labels.py``).

Knowledge distillation trains one forward's scores against the labels (cross-entropy) and
against a teacher's softened distribution (KL divergence). A teacher trained on those labels
puts its top probability on the label of most training rows. Targets that agree with the
labels only at chance belong to other rows or to no trained teacher: outputs stored once by
iterating a shuffling loader and read back by batch index while the loader reshuffles
("Fix bug about teacher output", https://github.com/haitongli/knowledge-distillation-pytorch/pull/17:
"The teacher's output disagree with batch's labels"), or a teacher whose checkpoint was
never loaded ("Teacher model weights loading",
https://github.com/NVIDIA-NeMo/Megatron-Bridge/issues/1422). The soft term then trains the
student towards noise.

A mean teacher starts as an untrained copy of the student and agrees with the labels only
later, so the verdict reads the late steps only: every kept step in the last half of the
steps measured must be near chance. Only a KL target and labels read off scores of one
forward of the same rows are compared (a consistency term on unlabelled rows is not).
"""
from ..findings import Finding
from .context import fmt, observed_list
from .graph import rule

AGREEMENT_OVER_CHANCE = 0.25  # [design] the share of the way from chance (1/C) to full
                              # agreement the late targets stay under: stored outputs of a
                              # shuffled loader and a random teacher agree 0.08-0.13 on ten
                              # classes (chance 0.1), a trained teacher on its training rows
                              # 0.9+; a teacher half right (0.55) is far above the line (0.33)
SOFT_LABEL_MIN_LATE = 2       # [design] late steps measured: the loop's habit, not one batch
SOFT_LABEL_MIN_ROWS = 16      # [design] labelled rows a late step compared at least


@rule(produces="SOFT_TARGETS_DISAGREE_WITH_LABELS", explains={"LOSS_PLATEAU", "LOSS_AT_CHANCE"})
def soft_targets_disagree_with_labels(ctx):
    rows = observed_list(ctx, "soft_target_agreement")
    if not rows:
        return None
    last = max(step for step, *_ in rows)
    late = [r for r in rows if r[0] * 2 >= last and r[3] >= SOFT_LABEL_MIN_ROWS]
    if len(late) < SOFT_LABEL_MIN_LATE:
        return None
    classes = late[-1][2]
    chance = 1.0 / max(classes, 2)
    line = chance + AGREEMENT_OVER_CHANCE * (1.0 - chance)
    if any(agreement > line for _, agreement, _, _ in late):
        return None
    shares = [agreement for _, agreement, _, _ in late]
    typical = sum(shares) / len(shares)
    return Finding(
        code="SOFT_TARGETS_DISAGREE_WITH_LABELS", severity="warning", where="kl_div",
        step=int(late[0][0]),
        message=f"The distillation targets (the KL divergence's target) put their highest "
                f"probability on the batch's label for only {fmt(typical)} of the rows on "
                f"{len(late)} late steps (from step {late[0][0]}), about chance over "
                f"{classes} classes ({fmt(chance)}), while the cross-entropy on the same "
                "scores is given those labels. A teacher trained on these labels agrees with "
                "most of them: these soft targets belong to other rows (teacher outputs "
                "stored in one shuffled order and read back in another) or to no trained "
                "teacher (its weights never loaded), and the soft term trains the student "
                "towards noise.",
        evidence={"steps": [int(r[0]) for r in late], "agreement": shares,
                  "classes": classes, "chance": chance, "line": line},
        fix="Compute the teacher's outputs on the same batch inside the loop (under "
            "torch.no_grad()), or store them by sample index, not by batch position; check "
            "that the teacher's checkpoint was loaded (its accuracy on a few batches) "
            "before distilling.")
