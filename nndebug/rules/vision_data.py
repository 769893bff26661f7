"""Image pipelines and fine-tuning: labels a loss never counts, and a "frozen" backbone that
still changes.

- IGNORE_INDEX_LEAVES_ONE_CLASS: a class-index loss (cross-entropy, NLL) whose targets,
  once those equal to its ``ignore_index`` are set aside, are all one class, on every
  recorded call, while the ignored value does occur. The loss then learns from that one
  class only: binary masks stored 0/255 meet a loss built with ``ignore_index=255`` (the
  void label of VOC and Cityscapes, the default of many segmentation configs), and the
  foreground is never counted; the model answers "background" everywhere at a loss near 0.
  (Every target one class without any ignored value is TARGETS_ALL_ONE_CLASS.)
- FROZEN_BATCHNORM_UPDATING: a batch-norm layer whose scale and shift are frozen
  (requires_grad=False), inside a module whose weights are frozen too, runs in train mode
  while the rest of the model trains. Its weights stay fixed, but every forward pass
  replaces its running statistics with the new data's: the pretrained backbone is not
  frozen after all, and what it computes in eval mode drifts away from what it was.

Both read what the monitor observes around the model (``run.observed``): the loss calls'
target counts, the frozen tensors, the batch-norm settings, and each record's layers found
in eval mode.
"""
from ..findings import Finding
from .context import CLASS_INDEX_LOSSES, MAJORITY, MIN_RECORDS, judged_loss_calls, \
    module_of, short_list
from .graph import rule

TARGET_CALLS_NEEDED = 3      # [design] recorded loss calls needed before a verdict on targets
                          # (the value target_kinds.py's TARGETS_ALL_ONE_CLASS uses)


def _observed(ctx):
    return getattr(ctx.run, "observed", None)


def _counted_classes(call):
    """The class ids a loss call counted (nonzero target counts, its ignore_index left
    out) and how many targets were ignored; None when the call has no counts or no
    ignore_index."""
    counts, ignored = call.target_counts, call.ignore_index
    if counts is None or ignored is None:
        return None
    classes = {c for c, n in enumerate(counts) if n and c != ignored}
    skipped = counts[ignored] if 0 <= ignored < len(counts) else 0
    return classes, int(skipped)


@rule(produces="IGNORE_INDEX_LEAVES_ONE_CLASS", explains={"LOSS_PLATEAU"})
def ignore_index_leaves_one_class(ctx):
    calls = judged_loss_calls(ctx, CLASS_INDEX_LOSSES)
    if len(calls) < TARGET_CALLS_NEEDED:
        return None
    # the counts come with the early calls only; the later ones give their range
    with_counts = [c for c in calls if c.target_counts is not None]
    counted = [_counted_classes(c) for c in with_counts]
    if len(counted) < TARGET_CALLS_NEEDED or any(c is None for c in counted):
        return None
    classes = set().union(*(c for c, _ in counted))
    ignored = sum(n for _, n in counted)
    if len(classes) != 1 or ignored == 0:
        return None
    kept, label = classes.pop(), with_counts[0].ignore_index
    if any(c.ignore_index != label or not {c.target_min, c.target_max} <= {kept, label}
           for c in calls):
        return None                       # a later call saw another class (or another loss)
    shape = calls[0].output_shape
    if shape is None or len(shape) < 2 or shape[1] < 2:
        return None                       # one output column: nothing else to answer
    total = sum(sum(c.target_counts) for c in with_counts)
    loss = calls[0].loss
    return Finding(
        code="IGNORE_INDEX_LEAVES_ONE_CLASS", severity="warning", where=loss,
        step=calls[0].step,
        message=f"{loss} ignores the target {label} (its ignore_index), and every target it "
                f"does count is class {kept}, on all {len(calls)} recorded calls; "
                f"{ignored} of {total} sampled targets were {label}. The loss learns from one "
                "class only: the model can answer that class everywhere at a loss near zero. "
                f"A mask that marks a real class with {label} (a binary mask stored 0/255) "
                "is ignored instead of learned.",
        evidence={"loss": loss, "ignore_index": label, "counted_class": kept,
                  "ignored_targets": ignored, "sampled_targets": total,
                  "calls": len(calls), "output_classes": int(shape[1])},
        fix=f"Map the stored values to class ids before the loss (for a 0/255 mask: mask // "
            f"255), or give the loss an ignore_index your labels never use for a class "
            f"(torch's default is -100); count the values of a few masks (torch.unique) to "
            f"see which value means what.")


def _frozen_norm_layers(observed):
    """Batch-norm layers keeping running statistics whose scale and shift are both frozen,
    inside a module holding a frozen weight matrix as well (a frozen backbone block, not
    a norm layer frozen alone while its neighbours train)."""
    frozen = {t.name: t for t in observed.frozen if not t.unfrozen}
    matrices = {module_of(name) for name, t in frozen.items() if len(t.shape) >= 2}
    found = []
    for setting in observed.norm_settings:
        layer = setting.layer
        if not setting.tracks_running_stats or "Batch" not in setting.type:
            continue
        if f"{layer}.weight" not in frozen or f"{layer}.bias" not in frozen:
            continue
        parent = module_of(layer)
        if any(m == parent or module_of(m) == parent for m in matrices):
            found.append(layer)
    return found


@rule(produces="FROZEN_BATCHNORM_UPDATING")
def frozen_batchnorm_updating(ctx):
    observed = _observed(ctx)
    if observed is None or not ctx.run.params or not observed.frozen:
        return None
    layers = _frozen_norm_layers(observed)
    trained = [r for r in ctx.records if r.backward]
    if not layers or len(trained) < MIN_RECORDS:
        return None
    # in train mode on most of the training steps recorded (eval_layers: those in eval mode)
    updating = [layer for layer in layers
                if sum(layer not in r.eval_layers for r in trained) > MAJORITY * len(trained)]
    if not updating:
        return None
    return Finding(
        code="FROZEN_BATCHNORM_UPDATING", severity="warning", where=updating[0],
        step=trained[0].step,
        message=f"{len(updating)} batch-norm layer(s) of a frozen part of the model "
                f"({short_list(updating)}: scale, shift and the weights around them have "
                "requires_grad=False) ran in train mode while the rest trained. Their "
                "weights stay fixed, but each forward pass replaces their running mean and "
                "variance with this data's: the pretrained backbone is not frozen, and what "
                "it computes in eval mode drifts away from what it was.",
        evidence={"layers": updating, "records_in_train_mode": len(trained),
                  "frozen_tensors": len(observed.frozen)},
        fix="Replace the frozen part's batch norm with frozen batch norm "
            "(torchvision.ops.FrozenBatchNorm2d), or put those layers in eval mode after "
            "every model.train() (backbone.eval()). If the statistics are meant to adapt to "
            "the new data, unfreeze scale and shift as well.")
