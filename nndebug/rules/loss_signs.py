"""LOSS_SIGN_FLIPPED: a loss written by hand that MINIMISES the probability of each row's
label (real-bug batch 75: fastai/fastbook#478, ``sm_acts[idx, targ].mean()`` written
without its minus sign).

What is read: the loss's graph on the first recorded steps (``monitor/loss_signs.py``,
``observed.picked_probability_losses``): the whole loss is, up to constants, the mean (or
sum) of one softmax (or sigmoid) probability picked per row - the label's column, indexed
by a tensor - and it RISES with those probabilities (sign +1). Then the loss curve: that
mean probability started near chance (1/classes for a softmax, 1/2 for a sigmoid) and ended
below ``SIGN_FLIP_BELOW_CHANCE`` x chance: the model learned to give the picked class less
than chance, i.e. to avoid its labels. Training "works" - the loss falls smoothly - and
accuracy ends below chance.

Healthy look-alikes left silent: the same loss with its minus sign (sign -1; its own
weakness is NLL_ON_PROBABILITIES'), a cross-entropy (no probability at the root), a
probability weighted per element below the mean (an expected reward), and the form with a
+ sign on a run whose picked probability did not fall below chance. Left to judgement:
complementary-label learning, which minimises the probability of a class the sample is
known NOT to be (rare; the message names the reading it assumes).
"""
import numpy as np

from ..findings import Finding
from .context import fmt, observed_list
from .graph import rule

SIGN_FLIP_BELOW_CHANCE = 0.3   # [measured] the picked probability's mean at the run's end
                               # below this share of chance: the fastbook loss ends at
                               # 0.0003 of a chance of 0.1 (0.003 x chance); a
                               # correct loss drives it UP, far above chance
SIGN_FLIP_WINDOW = 8           # [design] losses in the first and last windows (medians)


@rule(produces="LOSS_SIGN_FLIPPED",
      explains={"LOSS_AT_CHANCE", "LOSS_PLATEAU", "NLL_ON_PROBABILITIES"})
def loss_sign_flipped(ctx):
    rows = [row for row in observed_list(ctx, "picked_probability_losses") if row[3] > 0]
    if not rows:
        return None
    step, function, reduction, _, classes, reduced = rows[0]
    if function == "softmax" and (classes is None or classes < 2):
        return None
    chance = 0.5 if function == "sigmoid" else 1.0 / classes
    scale = 1.0 if reduction == "mean" else float(reduced or 0)
    losses = ctx.losses[np.isfinite(ctx.losses)]
    if scale <= 0 or losses.size < 2 * SIGN_FLIP_WINDOW:
        return None
    start = float(np.median(losses[:SIGN_FLIP_WINDOW])) / scale
    end = float(np.median(losses[-SIGN_FLIP_WINDOW:])) / scale
    if not end < SIGN_FLIP_BELOW_CHANCE * chance or not end < start:
        return None
    return Finding(
        code="LOSS_SIGN_FLIPPED", severity="error", where="loss", step=step,
        message=f"The loss is the {reduction} of each row's picked {function} probability "
                f"(the label's, indexed per row), and it rises with that probability: "
                f"minimising it pushes the labels' probabilities DOWN. It did: their mean "
                f"went from {fmt(start)} to {fmt(end)}, against a chance of {fmt(chance)} - "
                "the model learned to avoid each sample's label while the loss fell as a "
                "loss should. A likelihood written without its minus sign.",
        evidence={"function": function, "reduction": reduction, "classes": classes,
                  "picked_probability_start": start, "picked_probability_end": end,
                  "chance": chance, "steps": sorted({row[0] for row in rows})},
        fix="Negate it and take the log: -torch.log(probs[idx, targ]).mean() - better, "
            "F.cross_entropy(logits, targ) (F.binary_cross_entropy_with_logits for a "
            "sigmoid). Only if the picked class is one the sample is known NOT to be "
            "(complementary labels) is minimising it meant.")
