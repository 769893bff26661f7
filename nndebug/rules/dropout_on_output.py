"""DROPOUT_ON_OUTPUT: the model's output is a dropout layer's output
(``run.observed.dropout_outputs``).

Dropout after the output layer zeroes a share ``p`` of the predictions and scales the rest by
``1 / (1 - p)`` before the loss sees them. A squared error then averages
``(y - t)^2 + y^2 p / (1 - p)``, smallest at ``y = (1 - p) t``: the network learns to answer
a fraction of the target, and eval mode, without dropout, answers it. A classifier's loss is
handed logits set to 0 at random, noise that no hidden unit caused. Reported with a layer
helper that put dropout after every layer, the output layer included (maddin79/darch#12:
"the dropout should only be applied to the hidden layers but not the output layer ... when
dropout is applied, the predictions are worsened"; fixed by the maintainer).

Read on the first recorded training steps (``monitor/dropout_outputs.py``): the model's
output shares its storage with the output of a dropout layer that ran in training mode in
that forward (the output itself, or a view of it).
"""
from ..findings import Finding
from .context import observed_list
from .graph import rule

DROPOUT_OUTPUT_MIN_STEPS = 2     # [design] measured steps whose output is a dropout's: the
                                 # model's structure, not one odd call (three are measured)


@rule(produces="DROPOUT_ON_OUTPUT")
def dropout_on_output(ctx):
    rows = observed_list(ctx, "dropout_outputs")
    steps = sorted({step for step, _, _ in rows})
    if len(steps) < DROPOUT_OUTPUT_MIN_STEPS:
        return None
    _, layer, p = rows[0]
    return Finding(
        code="DROPOUT_ON_OUTPUT", severity="warning", where=layer, step=steps[0],
        message=f"The model's output is the output of dropout layer {layer} (p={p:g}) on "
                f"{len(steps)} measured training steps: the loss sees {p:.0%} of the "
                f"predictions zeroed and the rest multiplied by {1 / (1 - p):.3g}. A squared "
                f"error is then smallest for predictions {1 - p:.2g} times the target, which "
                "eval mode (no dropout) returns; a classifier is trained on logits zeroed at "
                "random.",
        evidence={"steps": steps, "layer": layer, "p": p},
        fix=f"Remove {layer} after the output layer (a layer helper that adds Dropout after "
            "every Linear must skip the last one); dropout belongs on hidden features, "
            "before the output layer.")
