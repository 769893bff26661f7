"""SOFTMAX_OVER_ONE_UNIT: a softmax or log-softmax over an axis of size one
(``run.observed.one_unit_softmaxes``, ``monitor/one_unit_softmaxes.py``).

exp(z) / exp(z) is 1 for every z: a softmax over a single number outputs a constant and
passes back no gradient. It is how a one-unit binary head under a softmax predicts the same
class for every input, how a one-channel segmentation head under ``CrossEntropyLoss``
trains on a loss of exactly 0, and how attention scores of shape (B, T, 1) normalised over
their last axis give every position the weight 1. The graph says it alone (the size of the
normalised axis): no threshold to tune.
"""
from ..findings import Finding
from .context import observed_list
from .graph import rule


@rule(produces="SOFTMAX_OVER_ONE_UNIT",
      explains={"NO_GRADIENT", "COLLAPSED_ACTIVATIONS", "LOSS_PLATEAU"})
def softmax_over_one_unit(ctx):
    rows = observed_list(ctx, "one_unit_softmaxes")
    if not rows:
        return None
    step, function, shape, axis = rows[0]
    shape_text = " x ".join(str(n) for n in shape)
    constant = "0 (its log of 1)" if function == "log_softmax" else "1"
    return Finding(
        code="SOFTMAX_OVER_ONE_UNIT", severity="warning", where="forward", step=step,
        message=f"A {function} runs over axis {axis} of a {shape_text} tensor, an axis that "
                f"holds ONE number: its output is exactly {constant} whatever goes in, and "
                "no gradient comes back through it. A one-unit head under a softmax "
                "predicts one class for everything; a one-channel segmentation head under "
                "CrossEntropyLoss trains on a loss of 0; attention scores of size 1 on the "
                "normalised axis give every position the weight 1.",
        evidence={"function": function, "shape": list(shape), "axis": axis,
                  "found": [[row[1], list(row[2]), row[3]] for row in rows],
                  "steps": sorted({row[0] for row in rows})},
        fix="Normalise over the axis that holds the choices. One output for two classes: a "
            "sigmoid with BCEWithLogitsLoss (binary_cross_entropy_with_logits), or two "
            "outputs with CrossEntropyLoss; attention: softmax over the keys' axis (e.g. "
            "scores (B, T) or dim=1 of (B, T, 1)), not over a size-1 axis.")
