"""VALIDATION_INPUTS_AUGMENTED: the same validation samples reach the model changed from
one evaluation to the next: the validation set goes through a random transform.

A dataset built with the training transform and then split (gpleiss/efficient_densenet_
pytorch#51), or a test transform copied from the training one, crops, flips and jitters
the validation images anew at every evaluation. The validation loss then scores distorted
images (too high) and moves with the draws; the best epoch, early stopping and a plateau
scheduler follow that noise. Nothing fails and the loss still falls.

Reads ``run.observed.validation_draws`` (``monitor/validation_draws.py``): the first rows
of the first validation input of two evaluations. A deterministic validation set gives the
same rows twice (silent). A shuffled one gives other samples: each row is no closer to its
counterpart than to any other row (chance). An augmented one gives the same samples
altered: each row is closer to its own counterpart than to the others, either in its raw
values (noise, jitter) or in its sorted values, which a flip or a small crop leave nearly
as they were. A validation that adds random noise on purpose (a denoising model scored on
fresh noise) reads the same way.
"""
import numpy as np

from ..findings import Finding
from .graph import rule

DRAW_MIN_ROWS = 8            # [design] rows compared before a verdict
COUNTERPART_RANK = 0.30      # [measured] mean share of other rows closer to a row than its own
                             # counterpart: 0.5 by chance (other samples), sd 0.29/sqrt(rows)
                             # (0.05 at 32 rows); 0.30 is four sd below chance. Digits through
                             # random 1-pixel crops and flips measure 0.08-0.26 over six seeds
                             # (0.25, five sd, missed one), the same rows paired at random
                             # 0.44-0.59


def counterpart_rank(first, second):
    """Mean over rows of the share of the other rows of ``second`` closer to row i of
    ``first`` than row i of ``second`` is (squared distance): 0 when every row's
    counterpart is its nearest, about 0.5 when rows and counterparts are unrelated."""
    distances = ((first[:, None, :] - second[None, :, :]) ** 2).sum(axis=-1)
    own = np.diag(distances)[:, None]
    closer = (distances < own).sum(axis=1)
    return float(np.mean(closer / (len(first) - 1)))


@rule(produces="VALIDATION_INPUTS_AUGMENTED")
def validation_inputs_augmented(ctx):
    observed = getattr(ctx.run, "observed", None)
    draws = list(getattr(observed, "validation_draws", None) or [])
    if len(draws) < 2:
        return None
    (first_step, first), (second_step, second) = draws[0], draws[1]
    if first.shape != second.shape or len(first) < DRAW_MIN_ROWS or \
            np.array_equal(first, second) or not (np.all(np.isfinite(first)) and
                                                  np.all(np.isfinite(second))):
        return None
    raw = counterpart_rank(first, second)
    ordered = counterpart_rank(np.sort(first, axis=1), np.sort(second, axis=1))
    rank = min(raw, ordered)
    if rank >= COUNTERPART_RANK:
        return None
    changed = float(np.mean(np.any(first != second, axis=1)))
    return Finding(
        code="VALIDATION_INPUTS_AUGMENTED", severity="warning", where="validation inputs",
        step=second_step,
        message=f"The validation inputs of step {first_step} and step {second_step} hold the "
                f"same samples, changed: {changed:.0%} of the first {len(first)} rows differ, "
                f"yet each is nearer its own counterpart than other rows are (mean share of "
                f"rows nearer: {rank:.2f}; 0.5 for unrelated samples). The validation set "
                "goes through a random transform (crops, flips, noise): its loss scores "
                "distorted images and moves with the draws, and the epoch or the early stop "
                "chosen by it follows noise.",
        evidence={"steps": [first_step, second_step], "rows": len(first),
                  "rows_changed": changed, "counterpart_rank_raw": raw,
                  "counterpart_rank_sorted": ordered},
        fix="Give the validation split its own dataset object with the deterministic "
            "transform (resize, center crop, ToTensor, Normalize): split the indices, then "
            "build Subset(train_dataset, train_idx) and Subset(val_dataset, val_idx).")
