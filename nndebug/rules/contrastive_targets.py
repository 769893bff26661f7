"""InfoNCE written as cross-entropy with the positive in column 0 (MoCo, CPC, many SimCLR
ports): ``logits = cat([l_pos, l_neg], 1) / T`` and ``labels = zeros(N)``. Every target
is class 0 and the row is far wider than the one id named - the form TARGETS_ALL_ONE_CLASS
and OUTPUT_WIDER_THAN_CLASSES look for - yet nothing is wrong: column 0 holds each row's
own positive, and the other columns are negatives, not classes.

Told apart from labels built wrong by what the loss does: a constant class on a classifier
is learned by a bias in a few steps and the loss sinks towards 0; in InfoNCE column 0 is a
similarity, not a class the head can favour, and the loss stays a sizeable share of
ln(width) (a healthy MoCo run ends near ln(K) - 2 or so). The row must also be as wide as
a contrast (at least MIN_CONTRAST_WIDTH columns, and one per other row of the batch at
least: negatives from the batch, or a queue longer than it). A shared guard of the two
rules, not a rule: it produces no finding.

Set from: batch 111's MoCo twin (logits 64 x 257, late loss about 5.0 against ln 257 =
5.55); checked against the seven real-bug cases whose constant labels or wide heads these
rules name (verdicts unchanged, seeds 0 and shifted by 1000) and tests/test_real_bug_rules_111
(10- and 100-class heads with every label 0 still named; MoCo queues and a positive-first
SimCLR port silent). No per-step cost: read only when a rule's own condition already holds.
"""
import math

import numpy as np

MIN_CONTRAST_WIDTH = 16    # [design] columns a contrast row needs: a 2- to 10-way classifier
                           # with constant labels is the mistake these rules name
HIGH_LOSS_SHARE = 0.25     # [design] the late loss's share of ln(width) that InfoNCE keeps:
                           # MoCo twin 0.90; a constant class a bias can learn sinks to ~0
LATE_SHARE = 1 / 3         # [design] the last third of the loss curve is read


def positive_first_contrast(ctx, calls):
    """True when every call scores a wide similarity row against target 0 and the loss
    does not collapse: InfoNCE with the positive first (module doc)."""
    if not calls:
        return False
    for call in calls:
        shape = call.output_shape or ()
        if len(shape) != 2 or call.target_min != 0 or call.target_max != 0:
            return False
        rows, width = int(shape[0]), int(shape[1])
        if width < MIN_CONTRAST_WIDTH or width < rows - 1:
            return False
    width = int(calls[0].output_shape[1])
    losses = np.asarray(ctx.losses, dtype=float)
    losses = losses[np.isfinite(losses)]
    if losses.size < 3:
        return False
    late = losses[int(len(losses) * (1 - LATE_SHARE)):]
    return float(np.median(late)) >= HIGH_LOSS_SHARE * math.log(width)
