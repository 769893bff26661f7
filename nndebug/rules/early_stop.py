"""EARLY_STOPPED_WHILE_IMPROVING: the run ended right after a validation pass that was its best
by a wide margin - the model was still improving fast when training stopped.

An early stopper ends a run after ``patience`` validation passes that did not improve on the
best; the last passes of a run it stopped are, by construction, no better than the best. A
run that ends on a pass that just beat the best by a wide margin was not stopped for lack of
progress. When it was meant to be stopped by one, the stopper's check is wrong: the best
score updated before the comparison reads it (so nothing ever counts as an improvement),
the first score compared with itself, the patience counter stepped per validation BATCH
instead of per pass, an accuracy compared the way a loss is. Nothing crashes: the run is
short, its curves fall, and the model is as good as the few epochs it got. Public reports:
"Bugs found in early stopping and gradient checkpointing logics",
https://github.com/fastino-ai/GLiNER2/issues/70 (the best updated before the check);
"Early stopping implemented on batch instead of epoch.",
https://github.com/NeptuneProjects/RISCluster/issues/1 (patience counted in batches).

Read from the validation losses passed to ``mon.step(loss, val_loss=...)``: at least
MIN_PASSES of them, the last LAST_FALL below the best of all the passes before it (a noisy
validation loss on a plateau does not beat its own best by that much). A run planned that short looks
the same, and is also undertrained: the message says both. A single validation pass gives
nothing to compare and is not judged.

A warning only when learning is poor (``curve.learning_poor``: the run gained little): a run
that ends still improving fast after a good start is more often a short fixed budget than a
broken stopper (6 of some 120 healthy twins in ``benchmarks/real_bugs`` that validate), and is
told as info - it could use more epochs.
"""
import numpy as np

from ..findings import Finding
from .curve import learning_poor
from .graph import rule

MIN_PASSES = 2       # [design] validation passes before a verdict: a fall needs two
LAST_FALL = 0.15     # [measured] the last pass below the best of all passes before it by at
                     # least this share: the broken stoppers of real-bug batches 139 and 266
                     # ended runs 23-36% below it, a noisy validation loss on a plateau does
                     # not beat its own best by that much; but 6 of some 120 healthy twins that
                     # validate (fixed budgets of 150-300 steps) also ended 16-20% below it:
                     # hence info unless learning is poor


def stopped_while_improving(steps, val):
    """(step of the last pass, its loss, the best loss before it, fall as a share) when the
    last validation pass beats every earlier one by LAST_FALL or more; else None."""
    ok = np.isfinite(val)
    steps, val = np.asarray(steps)[ok], np.asarray(val, dtype=float)[ok]
    if len(val) < MIN_PASSES:
        return None
    last, before = float(val[-1]), float(val[:-1].min())
    if before <= 0:
        return None
    fall = (before - last) / before
    if fall < LAST_FALL:
        return None
    return int(steps[-1]), last, before, fall


@rule(produces="EARLY_STOPPED_WHILE_IMPROVING")
def early_stopped_while_improving(ctx):
    """The run ended on a validation pass that beat every one before it by a wide margin."""
    steps, val = ctx.run.val_array()
    found = stopped_while_improving(steps, val)
    if found is None:
        return None
    step, last, before, fall = found
    return Finding(
        code="EARLY_STOPPED_WHILE_IMPROVING",
        severity="warning" if learning_poor(ctx) else "info", where="validation",
        step=step,
        message=f"The run ended right after its best validation pass (step {step}: "
                f"validation loss {last:.3g}, {fall:.0%} below the best before it, {before:.3g}): "
                "the model was still improving fast when training stopped. An early stopper "
                "ends a run after passes that did NOT improve, so if one stopped this run its "
                "check is wrong (the best score updated before the comparison, the first "
                "score compared with itself, patience counted per batch); if the run was "
                "planned this short, it is undertrained.",
        evidence={"last_val_loss": last, "best_val_loss_before": before,
                  "last_fall": round(fall, 3), "validation_passes": int(np.isfinite(val).sum()),
                  "last_fall_threshold": LAST_FALL},
        fix="Check the early-stopping logic: compare the new score with the best BEFORE "
            "updating the best, start the best at +inf (a loss) or -inf (an accuracy), and "
            "step the patience counter once per validation pass; or train for more epochs.")
