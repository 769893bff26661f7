"""VALIDATION_LOSS_MISSCALED: the validation loss is on another scale than the training
loss from the first validation on - a fraction of it (a summed loss divided by the WHOLE
dataset's length where a subset was drawn: ``len(loader.dataset)`` under a
``SubsetRandomSampler``; a last batch's loss divided by the number of batches; a running
total reset inside the batch loop) or a multiple of it (a loss summed over the batches or
the rows, never averaged).

A validation loss measures the model the training loss measures, on rows it has not
trained on, so from the first validation it sits near the training loss: a little below
it where training adds noise (dropout, augmentation, label smoothing, mixup: they raise the
training loss, and the gap opens only as the model fits), above it once the model
overfits. A validation loss under 0.3 times the training loss at its FIRST three measurements,
taken while the training loss still falls, or twenty times both the training and the untrained loss
at its first, is not a generalisation result but a division by the wrong count: every
comparison of the two curves (overfitting, a best epoch, early stopping against a training
target) reads it wrong. Read from the training losses and the validation losses passed to
``mon.step(loss, val_loss=...)``: nothing is observed.

The healthy look-alikes measured on the digits (validation every 22 steps, 300 steps):
dropout 0.5 and 0.8, label smoothing 0.2, mixup (alpha 1) and input noise start at 0.8-0.93
of the training loss at the first validation; mixup's falls to 0.25 and label smoothing's to
0.36 later on, as the model fits past what the regularised training loss can reach; the same
runs validated every 100 steps (600 steps) start at 0.35-0.67 (mixup: 0.35, 0.34, 0.26).
A wrong count scales every validation by one factor, so the first ratios agree with each
other; a clean validation loss racing to zero under a training loss held up by strong
augmentation does not (0.23, 0.02, 0.00: real-bug batch 172).
"""
import numpy as np

from ..findings import Finding
from .graph import rule

MISSCALE_MIN_VALIDATIONS = 3     # [design] validation losses needed
MISSCALE_TRAIN_WINDOW = 5        # [design] training losses (the latest at or before the
                                 # validation's step) whose median is the training level
LOW_FIRST_RATIO = 0.3            # [measured] the first validation losses at most this share of
                                 # the training level: regularised healthy runs start at
                                 # 0.8-0.93 validated every 22 steps, mixup validated every
                                 # 100 steps at 0.35, 0.34, 0.26 (docstring); the reproduced
                                 # bug (an 80/20 split) at 0.18-0.19, a 90/10 split would
                                 # give 0.1
LOW_EARLY_VALIDATIONS = 3        # [design] the first three validations all at most that
                                 # share: mixup reaches 0.25 only late, after 0.8 at its start
                                 # (later ones may rise: a misscaled loss of a model that
                                 # overfits climbs back towards the training loss)
LOW_EARLY_FALL = 0.8             # [design] and the first validation came before the training
                                 # loss made 80% of its fall (untrained to end): a late first
                                 # look at a regularised run (mixup, label smoothing) compares
                                 # a clean validation loss with a training loss at its floor
LOW_EARLY_SPREAD = 4.0           # [measured] and those first ratios agree within this factor:
                                 # a wrong count is one factor (the reproduced bug: 0.18-0.19);
                                 # a strongly augmented run on an easy task falls 0.23, 0.02,
                                 # 0.00 as its clean validation loss reaches 0 while the
                                 # augmented training loss cannot (real-bug batch 172's
                                 # SpecAugment twin at seeds + 1000)
HIGH_RATIO = 20.0                # [design] or the first validation loss 20x the training
                                 # level AND 20x the untrained loss: a sum over a batch of 32
                                 # or more rows; an overfitting model's first validation is
                                 # at most a few times the untrained loss


def validation_ratios(curve_steps, curve, val_steps, val):
    """(ratios of each validation loss to the training level at its step, the training
    levels), for the validations with a training loss at or before them."""
    curve_steps, curve = np.asarray(curve_steps), np.asarray(curve, dtype=float)
    ratios, levels = [], []
    for step, value in zip(val_steps, val):
        before = curve[curve_steps <= step][-MISSCALE_TRAIN_WINDOW:]
        if not len(before):
            continue
        level = float(np.median(before))
        if not level > 0 or not np.isfinite(value):
            continue
        ratios.append(float(value) / level)
        levels.append(level)
    return np.asarray(ratios), np.asarray(levels)


def misscaled(curve_steps, curve, val_steps, val):
    """("below" or "above", the ratios) when the validation losses sit on another scale
    than the training losses from the first on; else None."""
    if len(curve) < 2 * MISSCALE_TRAIN_WINDOW:
        return None
    ratios, _ = validation_ratios(curve_steps, curve, val_steps, val)
    if len(ratios) < MISSCALE_MIN_VALIDATIONS:
        return None
    untrained = float(curve[0])
    end = float(np.median(np.asarray(curve[-MISSCALE_TRAIN_WINDOW:], dtype=float)))
    before = np.asarray(curve, dtype=float)[np.asarray(curve_steps) <= val_steps[0]]
    early = len(before) > 0 and untrained > end and \
        untrained - float(np.median(before[-MISSCALE_TRAIN_WINDOW:])) <= \
        LOW_EARLY_FALL * (untrained - end)
    first = ratios[:LOW_EARLY_VALIDATIONS]
    if early and np.all(first <= LOW_FIRST_RATIO) and \
            np.all(np.asarray(val, dtype=float) > 0) and \
            first.max() <= LOW_EARLY_SPREAD * first.min():
        return "below", ratios
    if untrained > 0 and ratios[0] >= HIGH_RATIO and float(val[0]) >= HIGH_RATIO * untrained:
        return "above", ratios
    return None


@rule(produces="VALIDATION_LOSS_MISSCALED", explains={"OVERFITTING"})
def validation_loss_misscaled(ctx):
    steps, val = ctx.run.val_array()
    ok = np.isfinite(val)
    if ok.sum() < MISSCALE_MIN_VALIDATIONS:
        return None
    found = misscaled(ctx.curve_steps, ctx.curve, steps[ok], val[ok])
    if found is None:
        return None
    side, ratios = found
    if side == "below":
        what = (f"at {ratios[0]:.2g} times the training loss at its first measurement and "
                f"at most {ratios[:LOW_EARLY_VALIDATIONS].max():.2g} times it at the first "
                f"{min(len(ratios), LOW_EARLY_VALIDATIONS)}: a model "
                "scored on rows it has not trained on does not start far better than on "
                "the rows it trains on. The summed loss was most likely divided by a "
                "larger count than it sums over: len(loader.dataset) for a loader that "
                "draws a subset (SubsetRandomSampler), the number of batches for a total "
                "that holds the last batch only, the whole set's size for a loss already "
                "averaged per batch")
        fix = ("Divide the validation total by what it sums over: the rows the loader "
               "drew (len(loader.sampler), or count them) for a sum of per-row losses, the "
               "number of batches for a sum of batch means; start the total at zero "
               "before the batch loop, not inside it.")
    else:
        what = (f"at {ratios[0]:.3g} times the training loss and {val[ok][0] / ctx.curve[0]:.3g} "
                "times the untrained model's loss at its first measurement: it is summed "
                "(over the rows or the batches), not averaged")
        fix = ("Average the validation loss: the mean over the rows (reduction='mean', or "
               "the sum divided by the row count), or the mean of the batch means.")
    return Finding(
        code="VALIDATION_LOSS_MISSCALED", severity="warning", step=int(steps[ok][0]),
        message=f"The validation loss is on another scale than the training loss: {what}. "
                "Every comparison of the two curves (overfitting, the best epoch, early "
                "stopping) reads it wrong.",
        evidence={"side": side, "first_ratio": float(ratios[0]),
                  "ratios": [round(float(r), 4) for r in ratios[:20]],
                  "validations": int(len(ratios))},
        fix=fix)
