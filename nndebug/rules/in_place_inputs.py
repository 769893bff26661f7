"""INPUT_MODIFIED_IN_PLACE: the model's forward writes into the tensor it was given, and that
tensor shares memory with data the loop keeps (a slice of the training tensor, or the same
tensor fed again), so the change stays in the training data.

Public report: a noise layer written ``x += randn_like(x) * std``
(balbasty/cornucopia#13, the reviewer: "there could be weird side effects if we modify the
input tensor"); fed slices of the training set, every epoch adds another draw of noise to
the stored images. Read by ``monitor/in_place_inputs.py`` (version counters before and
after the model's forward on the first recorded steps).

Healthy look-alikes: in-place ops on the model's own intermediate tensors (the input's count
does not move); an input written in place that is a fresh batch (a DataLoader's collated
copy, a ``.to(device)`` copy, advanced indexing): the write dies with the batch - info only,
since a loss that reads the same tensor afterwards (an autoencoder's target) would still
see it.
"""
from ..findings import Finding
from .graph import rule

MIN_IN_PLACE_STEPS = 2   # [design] watched steps whose forward wrote into a kept input (of
                         # the first 3): a model does the same thing every step; one step
                         # alone could be a set-up call


@rule(produces="INPUT_MODIFIED_IN_PLACE")
def input_modified_in_place(ctx):
    rows = getattr(ctx.run.observed, "in_place_inputs", None) or []
    if not rows:
        return None
    kept = [r for r in rows if r[2] or r[4]]
    steps = sorted({r[0] for r in kept})
    first = (kept or rows)[0]
    if len(steps) >= MIN_IN_PLACE_STEPS:
        how = ("a view of a larger tensor of "
               f"{first[3]} elements (a slice of the data)" if first[2] else
               "the same memory fed again on a later step")
        return Finding(
            code="INPUT_MODIFIED_IN_PLACE", severity="warning", where="model", step=first[0],
            message=f"On {len(steps)} watched step(s) the model's forward wrote into its own "
                    f"input (shape {first[1]}), and that input is {how}: every forward "
                    "changes the training data itself, so an in-place noise, clamp or "
                    "normalisation piles up epoch after epoch and the data drifts away from "
                    "what the model is evaluated on.",
            evidence={"rows": [list(r) for r in rows], "threshold_steps": MIN_IN_PLACE_STEPS},
            fix="Make the layer out-of-place (x = x + noise, x = x.clamp(0, 1), "
                "nn.ReLU(inplace=False) as a first layer), or pass the model a copy "
                "(x_train[i:i + n].clone()).")
    return Finding(
        code="INPUT_MODIFIED_IN_PLACE", severity="info", where="model", step=first[0],
        message=f"The model's forward writes into its input (shape {first[1]}) in place. The "
                "batches seen were fresh tensors, so the training data is untouched; a loss "
                "or a metric that reads the same tensor after the forward sees the changed "
                "values.",
        evidence={"rows": [list(r) for r in rows]},
        fix="Prefer out-of-place operations on a module's input (x = x + noise).")
