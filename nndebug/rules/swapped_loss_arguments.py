"""LOSS_ARGUMENTS_SWAPPED: a binary cross-entropy given the data as its prediction and the
model's output as its target (``run.observed.swapped_loss_arguments``).

``F.binary_cross_entropy_with_logits(x, logits)`` where ``(logits, x)`` was meant: torch
differentiates the loss with respect to its target as well, so training runs, and the loss
is linear in the model's output with a slope set by the data. Lowering it means pushing
every output one way without end: the loss falls below zero and keeps falling, gradients
grow, and the reconstruction is lost (autonomousvision/sledge#4, a VAE whose loss was
refactored with its arguments exchanged). The symptoms (LOSS_UNBOUNDED_BELOW, a loss that
swings, large gradients) follow from this cause, so it explains them.

Read on the first recorded steps from the loss's graph (``monitor/swapped_loss_arguments.py``):
a binary cross-entropy node whose prediction input has no graph while its target input has
one. A target with a graph of its own (a teacher's probabilities not detached) next to a
prediction with one is no swap and is left alone, as is any symmetric loss.
"""
from ..findings import Finding
from .context import observed_list
from .graph import rule

SWAPPED_MIN_STEPS = 2        # [design] measured steps with a swapped call: the loop's habit,
                             # not one odd step (three are measured)


@rule(produces="LOSS_ARGUMENTS_SWAPPED",
      explains={"LOSS_UNBOUNDED_BELOW", "LOSS_OSCILLATING", "EXPLODING_GRADIENTS",
                "LOSS_DIVERGING"})
def loss_arguments_swapped(ctx):
    rows = observed_list(ctx, "swapped_loss_arguments")
    steps = sorted({step for step, _ in rows})
    if len(steps) < SWAPPED_MIN_STEPS:
        return None
    names = sorted({name for _, name in rows})
    called = " and ".join(f"F.{name}" for name in names)
    return Finding(
        code="LOSS_ARGUMENTS_SWAPPED", severity="error", where="loss", step=steps[0],
        message=f"{called} is called with its arguments swapped on {len(steps)} measured "
                "steps: its first argument (the prediction) carries no gradient, its "
                "second (the target) is the model's output. The loss is then linear in "
                "the model's output and is lowered by pushing every output one way "
                "without end; the model learns nothing the loss was meant for.",
        evidence={"steps": steps, "losses": names},
        fix=f"Pass the model's output first and the data second: {names[0]}(output, "
            "target).")
