"""MARGIN_OUTSIDE_SIMILARITY_RANGE: a margin loss on normalised embeddings (a cosine
similarity) whose hinges the untrained model already satisfies: the loss is exactly 0
from the first step, so no gradient ever reaches the model
(``run.observed.loss_hinges``, ``monitor/loss_hinges.py``, and the loss values).

pytorch-metric-learning's ``ContrastiveLoss`` defaults, ``pos_margin=0, neg_margin=1``, are
a DISTANCE's margins (pull positives to distance 0, push negatives past 1). Given
``distance=CosineSimilarity()`` they read as "positives need a cosine above 0, negatives a
cosine below 1": a cosine never exceeds 1, so the negatives' hinge ``relu(sim - 1)`` is
never active, and the positives' ``relu(0 - sim)`` is already met by most pairs of a fresh
network (KevinMusgrave/pytorch-metric-learning#504: "the loss for each batch I have
obtaining very low loss"; the maintainer: the defaults "don't make sense for cosine
similarity. You could try pos_margin=1, neg_margin=0").

A healthy margin loss starts above 0 - random embeddings violate sensible margins - and
reaches 0 only once it has separated the pairs; a loss that is exactly 0 on its first
recorded step, and on nearly every step after, has margins that ask nothing of the model.
Named only where the loss graph holds a hinge and divides by a vector norm (cosines); a
zero loss without a hinge is another rule's business.
"""
import math

from ..findings import Finding
from .context import observed_list
from .graph import rule

HINGE_ZERO_SHARE = 0.9             # [design] finite recorded losses exactly 0 at least this share
HINGE_MIN_LOSSES = 5          # [design] losses seen at least (one zero step is no habit)


@rule(produces="MARGIN_OUTSIDE_SIMILARITY_RANGE",
      explains={"NO_GRADIENT", "PARAMS_NOT_UPDATING", "LOSS_PLATEAU"})
def margin_outside_similarity_range(ctx):
    rows = [row for row in observed_list(ctx, "loss_hinges") if row[1] > 0 and row[2]]
    if not rows:
        return None
    losses = [float(v) for v in getattr(ctx, "losses", ()) if math.isfinite(float(v))]
    if len(losses) < HINGE_MIN_LOSSES or losses[0] != 0.0:
        return None
    zeros = sum(1 for v in losses if v == 0.0)
    if zeros < HINGE_ZERO_SHARE * len(losses):
        return None
    step = int(ctx.loss_steps[0]) if len(ctx.loss_steps) else rows[0][0]
    return Finding(
        code="MARGIN_OUTSIDE_SIMILARITY_RANGE", severity="warning", where="loss", step=step,
        message=f"The loss compares normalised embeddings (a cosine similarity) through "
                f"{rows[0][1]} hinge(s), and it is exactly 0 from the first step on "
                f"({zeros} of {len(losses)} losses): the untrained model already meets every "
                "margin, so no gradient reaches it. Margins meant for a distance (positives "
                "pulled below 0, negatives pushed past 1) read on a similarity ask for a "
                "cosine above 0 and below 1, which a fresh network nearly always gives.",
        evidence={"hinges": rows[0][1], "zero_losses": zeros, "losses": len(losses),
                  "steps": sorted({row[0] for row in rows})},
        fix="Give a similarity margins on its own scale: positives must exceed a HIGH "
            "cosine, negatives stay below a low one (pytorch-metric-learning's "
            "ContrastiveLoss(pos_margin=1, neg_margin=0, distance=CosineSimilarity())), or "
            "keep the distance margins with a distance (LpDistance on normalised "
            "embeddings).")
