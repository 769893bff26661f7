"""LOSS_MEAN_OVER_CLASSES: a loss written by hand over a (batch, classes) table of per-class
terms, masked one-hot, and averaged over the whole table (real-bug batch 75:
itakurah/focal-loss-pytorch#6, a focal loss's ``loss.mean()`` over (batch, classes)).

What is read: ``observed.class_mean_losses`` (``monitor/class_means.py``: the loss's root is
a whole mean over a (rows, classes) input, and a product below it takes a constant one-hot
mask of that shape). The mean divides by rows x classes where the per-sample loss - the
sum over the classes - averaged over the rows was meant: the loss and every gradient are
1 / classes of the intended ones. That matters where the optimizer's step is proportional
to the gradient (SGD: the learning rate in effect is the set one / classes) and the run
learned poorly; under Adam the scale divides out, and a run that learns well has nothing to
blame on it (both silent).

Healthy look-alikes left silent: a multi-label BCE averaged over (batch, classes) (its
table holds a term for every class: a sum of two products, not a one-hot mask), soft or
smoothed targets (no one-hot mask), F.kl_div's 'mean' (KL_DIV_MEAN_OVER_CLASSES), the same
loss with ``.sum(1).mean()``.
"""
from ..findings import Finding
from .context import observed_list
from .curve import learning_poor
from .graph import rule

CLASS_MEAN_OPTIMIZERS = {"SGD"}   # [design] steps proportional to the gradient: a loss 1/K the
                                  # size is a learning rate 1/K the size; Adam-like steps
                                  # divide the scale out
CLASS_MEAN_MIN_CLASSES = 3        # [design] a mean over 2 columns halves the loss: a factor
                                  # a learning rate choice absorbs; 3+ is a real shrink


@rule(produces="LOSS_MEAN_OVER_CLASSES",
      explains={"LOSS_PLATEAU", "LOSS_AT_CHANCE", "LR_TOO_LOW"})
def loss_mean_over_classes(ctx):
    rows = [row for row in observed_list(ctx, "class_mean_losses")
            if row[2] >= CLASS_MEAN_MIN_CLASSES]
    settings = getattr(ctx.run.observed, "optimizer_settings", None) or []
    if not rows or not settings or \
            any(s.type not in CLASS_MEAN_OPTIMIZERS for s in settings) or \
            not ctx.enough_steps or not learning_poor(ctx):
        return None
    step, batch, classes = rows[0]
    return Finding(
        code="LOSS_MEAN_OVER_CLASSES", severity="warning", where="loss", step=step,
        message=f"The loss is the mean of a ({batch}, {classes}) table of per-class terms in "
                f"which a one-hot mask leaves one term per row: the mean divides by "
                f"{batch} x {classes} where the per-sample loss (the sum over the classes) "
                f"averaged over the batch was meant, so the loss and its gradients are "
                f"1/{classes} of the intended ones. Under {settings[0].type} that is a "
                f"learning rate {classes} times smaller than the one set, and the run is "
                "learning slowly.",
        evidence={"rows": batch, "classes": classes, "optimizer": settings[0].type,
                  "steps": sorted({row[0] for row in rows})},
        fix="Sum over the classes, then average over the batch: loss.sum(dim=1).mean() (or "
            "gather the label's term: F.cross_entropy / F.nll_loss do). Raising the learning "
            f"rate {classes}x is the same thing, written less clearly.")
