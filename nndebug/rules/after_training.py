"""What the loop did with the model without gradients, from the forwards
``monitor/forwards_after_training.py`` counted (``run.observed.forwards_after_training``, one
row). (The same row tells VALIDATION_IN_TRAIN_MODE of an evaluation after the last step in
training mode: ``validation_inputs.py``.)

MC_DROPOUT_SAMPLED_IN_EVAL_MODE: the same input run MC_MIN_PASSES times or more in a row
without gradients, the model holding dropout layers and every one of them off. Monte Carlo
dropout reads the spread of such passes; with ``model.eval()`` before them the passes are
identical and the uncertainty is zero for every input (SalsaNext's inference code,
https://github.com/TiagoCortinhal/SalsaNext/issues/40, real-bug batch 114). One input
evaluated again and again with dropout off for any other reason is rare: a loop computing a
loss, an accuracy and a calibration error each with its own forward makes three.
"""
from ..findings import Finding
from .context import MC_MIN_PASSES, observed_list
from .graph import rule


def _row(ctx):
    rows = observed_list(ctx, "forwards_after_training")
    return rows[-1] if rows else None


@rule(produces="MC_DROPOUT_SAMPLED_IN_EVAL_MODE")
def mc_dropout_sampled_in_eval_mode(ctx):
    row = _row(ctx)
    if row is None:
        return None
    after, earlier = row[5], row[8]
    passes = max(after, earlier)
    if passes < MC_MIN_PASSES:
        return None
    when = "after the last training step" if after == passes else "between training steps"
    return Finding(
        code="MC_DROPOUT_SAMPLED_IN_EVAL_MODE", severity="warning",
        step=int(row[0]) if after == passes else None,
        message=f"The model was run {passes} times in a row on the same input without "
                f"gradients ({when}), with every dropout layer in eval mode. If these are "
                "Monte Carlo dropout passes, they are identical: model.eval() turned dropout "
                "off, so the predictive variance is zero for every input and the "
                "'uncertainty' ranks nothing.",
        evidence={"passes_on_one_input": passes, "threshold": MC_MIN_PASSES},
        fix="After model.eval(), switch only the dropout layers back on for the Monte Carlo "
            "passes (for m in model.modules(): if isinstance(m, nn.Dropout): m.train()), so "
            "batch norm keeps its running statistics.")
