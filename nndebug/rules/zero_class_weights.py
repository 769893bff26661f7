"""CLASS_WEIGHT_ZERO: a class the targets hold often has weight 0 in the loss, and the model
has stopped answering it.

Class weights meant to balance an imbalanced classification are sometimes computed with a
formula that sends one of them to zero: ``log(max_count / count)`` gives the commonest
class log(1) = 0 (finetune's 'log' weights, real-bug batch 62), ``1 - share`` gives a
class that fills every batch of a task 0. A class of weight 0 adds nothing to the loss: its
rows are ignored, every step on the other classes pushes its score down, and the model
never picks it. The loss curve looks healthy - what it measures no longer includes that
class - so nothing else says so.

What the rule reads, all on the loss calls the monitor already keeps
(``run.observed.loss_calls``): the class weights of a class-index loss (``weight=``), how
often each class id occurs in the sampled targets of the first calls (``target_counts``),
and the classes the model's scores pick on the last recorded calls (``predicted_classes``).
A class whose weight is 0 (below ``ZERO_WEIGHT`` of the largest) while it makes up at least
``ZERO_WEIGHT_MIN_SHARE`` of the sampled targets, and which none of the last
``ZERO_WEIGHT_LATE_CALLS`` recorded batches (from step ``ZERO_WEIGHT_MIN_LAST_STEP`` on)
has the model pick, is named. Cost: none beyond what the loss calls already carry.

Healthy look-alikes: small but non-zero weights on a frequent class (0.05 on a background)
still train it; a class the model still picks somewhere late is being learned from
somewhere (it is left alone); ``ignore_index`` on the class (the usual way to leave out an
unlabelled 'void' class) is read and the class skipped. A 'void' class zeroed through
``weight=`` instead is named too: its message says that this is the one case where the
zero is meant, and that ``ignore_index`` says so without the doubt.
"""
import numpy as np

from ..findings import Finding
from .context import CLASS_INDEX_LOSSES, fmt, judged_only
from .graph import rule

ZERO_WEIGHT = 1e-6              # [design] a weight at most this share of the largest is 0:
                                # nothing a formula for balancing gives on purpose
ZERO_WEIGHT_MIN_SHARE = 0.05    # [design] the class holds at least 5% of the sampled targets:
                                # the commonest class of a ten-class long tail holds 25%
ZERO_WEIGHT_MIN_TARGETS = 200   # [design] sampled targets before class shares are trusted (as
                                # CLASS_WEIGHTS_REVERSED's MIN_TARGETS)
ZERO_WEIGHT_LATE_CALLS = 3      # [design] the last recorded loss calls that must all leave the
                                # class unpicked (as RARE_CLASS_NEVER_PREDICTED reads them)
ZERO_WEIGHT_MIN_LAST_STEP = 50  # [design] the first of them at least this far into the run
ZERO_WEIGHT_MIN_EXPECTED = 10.0  # [design] the class should appear about this many times in
                                # those late batches: never picking it is no accident


def zero_weighted_classes(weights, counts, ignored=None):
    """[(class, share of the sampled targets)] of the classes whose weight is 0 while they
    make up at least ``ZERO_WEIGHT_MIN_SHARE`` of ``counts`` (occurrences per class id);
    ``ignored``: the loss's ignore_index (its class is left out). Empty when too few targets
    were sampled or the weights are not finite and positive somewhere."""
    w = np.asarray(weights, dtype=float)
    n = np.zeros(len(w))
    k = min(len(w), len(counts))
    n[:k] = np.asarray(counts, dtype=float)[:k]
    if ignored is not None and 0 <= ignored < len(n):
        n[ignored] = 0
    if n.sum() < ZERO_WEIGHT_MIN_TARGETS or not np.isfinite(w).all() or w.max() <= 0:
        return []
    share = n / n.sum()
    return [(int(c), float(share[c])) for c in range(len(w))
            if abs(w[c]) <= ZERO_WEIGHT * w.max() and share[c] >= ZERO_WEIGHT_MIN_SHARE]


@rule(produces="CLASS_WEIGHT_ZERO", explains={"RARE_CLASS_NEVER_PREDICTED"})
def class_weight_zero(ctx):
    observed = getattr(ctx.run, "observed", None)
    if observed is None:
        return None
    calls = [c for c in judged_only(ctx, observed.loss_calls) if c.loss in CLASS_INDEX_LOSSES
             and c.class_weights and len(tuple(c.output_shape)) >= 2]
    if not calls:
        return None
    weights = calls[0].class_weights
    same = [c for c in calls if c.class_weights == weights]
    counts = np.zeros(len(weights))
    for call in same:
        if call.target_counts:
            k = min(len(weights), len(call.target_counts))
            counts[:k] += call.target_counts[:k]
    zeroed = zero_weighted_classes(weights, counts, calls[0].ignore_index)
    if not zeroed:
        return None
    late = [c for c in same if c.predicted_classes is not None][-ZERO_WEIGHT_LATE_CALLS:]
    if len(late) < ZERO_WEIGHT_LATE_CALLS or late[0].step < ZERO_WEIGHT_MIN_LAST_STEP:
        return None
    picked = set().union(*(set(c.predicted_classes) for c in late))
    positions = sum(int(np.prod(c.output_shape)) // int(c.output_shape[1]) for c in late)
    never = [(c, s) for c, s in zeroed if c not in picked
             and s * positions >= ZERO_WEIGHT_MIN_EXPECTED]
    if not never:
        return None
    cls, share = max(never, key=lambda item: item[1])
    loss = calls[0].loss
    commonest = int(np.argmax(counts))
    return Finding(
        code="CLASS_WEIGHT_ZERO", severity="warning", where=loss, step=int(late[0].step),
        message=f"{loss}'s class weights give class {cls} weight {fmt(weights[cls])}, yet it "
                f"makes up {fmt(100 * share)}% of the sampled targets"
                f"{' (the commonest class)' if cls == commonest else ''}: its rows add "
                "nothing to the loss, and from step "
                f"{late[0].step} on the model never picks it. The loss looks fine because "
                "it no longer measures that class. A formula such as log(max_count / count) "
                "gives the commonest class exactly 0.",
        evidence={"class": cls, "target_share": share, "weights": list(weights),
                  "zero_weighted": [c for c, _ in never], "steps": [int(c.step) for c in late],
                  "predicted": sorted(int(p) for p in picked),
                  "targets_sampled": int(counts.sum())},
        fix="Keep every class's weight above 0: log(max_count / count) + 1 (finetune's fix), "
            "or 1 / frequency normalised; if the class is an unlabelled 'void' class meant "
            "to be left out, say so with ignore_index=<its id> instead of a zero weight.")
