"""LOSS_BROADCAST_OVER_BATCH: a hand-written error term that combines the predictions with
the targets across the batch, every output against every target, because their shapes
differ by a trailing axis: ``(N, 1)`` against ``(N,)``.

``((output - target) ** 2).mean()`` with a model's ``(N, 1)`` column and ``(N,)`` targets
broadcasts into an ``(N, N)`` table; its minimum puts every output at the mean of the
batch's targets, so the loss falls a little and stays high while the model learns nothing
about each sample. The loss modules warn about such shapes (LOSS_SHAPE_MISMATCH); tensor
arithmetic does not. pytorch/pytorch#2973: broadcasting "(10,1)" with "(10)" into
"(10,10)" throws people off "when such cases happen in a loss function that reduces the
output into a single scalar".

Reads ``run.observed.outer_differences`` (``monitor/outer_differences.py``): the
differences or products of a tensor without gradient with the model's side into a square
table of the batch's size (or, real-bug batch 203, a tensor of more axes holding the batch
twice: mixup's label weight shaped for the images), combined elementwise and then reduced,
found in the loss's graph
on the first recorded steps (kernels, and losses that compare the model's outputs pairwise
on purpose, are left out there).
"""
from ..findings import Finding
from .graph import rule

OUTER_DIFFERENCE_MIN_STEPS = 2    # [design] walked steps showing the table: the loop's
                                  # habit, not a one-off (the monitor walks the first three)


@rule(produces="LOSS_BROADCAST_OVER_BATCH",
      explains={"LOSS_PLATEAU", "LOSS_AT_CHANCE", "LOSS_DIVERGING", "LOSS_OSCILLATING"})
def loss_broadcast_over_batch(ctx):
    observed = getattr(ctx.run, "observed", None)
    found = list(getattr(observed, "outer_differences", None) or [])
    steps = sorted({int(step) for step, _, _ in found})
    if len(steps) < OUTER_DIFFERENCE_MIN_STEPS:
        return None
    _, table, operand = found[0]
    rows = table[0]
    shape_text = ", ".join(str(n) for n in operand) + ("," if len(operand) == 1 else "")
    operand_text = f"({shape_text})"
    other_text = "a vector" if len(operand) == 2 else "a column"
    made = f"a ({rows}, {rows}) table" if len(table) == 2 else \
        f"a {tuple(table)} tensor with two axes of the batch's size"
    if len(table) > 2:
        other_text = "shaped so that it broadcasts against a new batch axis"
    return Finding(
        code="LOSS_BROADCAST_OVER_BATCH", severity="error", step=steps[0],
        message=f"The loss combines the model's {operand_text} output with a tensor "
                f"without gradient (the targets, {other_text}) and reduces the result: "
                f"broadcasting made it {made}, every output against every "
                f"target of the batch, on steps {steps[:5]}. It is smallest when every "
                "output fits the batch's targets on average, so the loss stalls and the "
                "model learns nothing about each sample. No warning comes from tensor "
                "arithmetic (the loss modules would have warned).",
        evidence={"steps": steps[:10], "table_shape": list(table),
                  "output_shape": list(operand), "differences": len(found),
                  "threshold_steps": OUTER_DIFFERENCE_MIN_STEPS},
        fix="Make the output and the target the same shape before combining them: "
            "output.squeeze(1) for a (N, 1) output against (N,) targets, or "
            "target.unsqueeze(1) the other way round (or use nn.MSELoss/nn.L1Loss, which "
            "warn about mismatched shapes).")
