"""RECOMPUTED_FORWARD_DIFFERS: parts of the model run a second time during backward
(activation checkpointing), and the gradient they give back is not the gradient of what the
forward pass computed.

Checkpointing keeps a segment's inputs only and re-runs its forward in backward. When that
second run differs from the first - dropout drawing fresh masks because the random
generator is not restored (``preserve_rng_state=False``, a hand-written checkpoint helper:
openai/guided-diffusion#167), an operation whose saved state is not what its forward used
(RReLU's noise under non-reentrant checkpointing, pytorch#193671) - the loss belongs to one
network and its gradient to another, and nothing fails: the run learns worse, or blows up.

Read from ``run.observed.recomputed_segments`` (``monitor/recomputed_segments.py``): the
modules seen running inside a backward pass on the first recorded steps, and a gradient
check on a float64 copy of the model made then: the copy's own backward against central
differences along random directions, every forward pass drawing the same random numbers.

Healthy look-alikes: checkpointing that restores the generator (torch's default), or a
segment without randomness; batch norm inside a checkpoint (its running statistics move
twice, its output and gradient do not); a model with no recomputation at all (nothing is
checked). A forward that does not repeat itself under one seed is not judged.
"""
from ..findings import Finding
from .context import observed_list
from .graph import rule

GRADIENT_ERROR = 0.05   # [design] median relative error of the directional derivative above
                        # which the backward is not the forward's: a right backward agrees
                        # to ~1e-6 in float64 (central differences at 1e-5), dropout masks
                        # redrawn or noise read unset give errors of order 1 or more


@rule(produces="RECOMPUTED_FORWARD_DIFFERS",
      explains={"EXPLODING_GRADIENTS", "NAN_GRADIENTS", "NAN_LOSS", "LOSS_PLATEAU",
                "LOSS_AT_CHANCE", "LOSS_OSCILLATING", "LOSS_DIVERGING"})
def recomputed_forward_differs(ctx):
    rows = [r for r in observed_list(ctx, "recomputed_segments") if r[2] and r[3] is not None]
    wrong = [r for r in rows if r[3] > GRADIENT_ERROR or r[4] is False]
    if not wrong:
        return None
    step, modules, _, error, finite, _ = wrong[0]
    names = ", ".join(modules[:4]) + (f" and {len(modules) - 4} more" if len(modules) > 4 else "")
    size = "not finite" if finite is False else f"off by {100 * error:.0f}% (median)"
    return Finding(
        code="RECOMPUTED_FORWARD_DIFFERS", severity="warning", where=modules[0] if modules else "",
        step=int(step),
        message=f"Backward runs part of the model again ({names}: activation checkpointing "
                "recomputes them), and the gradient it gives back is not the gradient of the "
                "loss the forward pass computed: along random directions the model's own "
                f"gradient is {size} against the change of the function itself, with every "
                "forward pass drawing the same random numbers. The recomputation differs from "
                "the forward - dropout drawing new masks because the random generator is not "
                "restored, or an operation whose saved state is not what its forward used - "
                "so every step follows another network's gradient.",
        evidence={"recomputed": modules, "relative_error": error, "gradient_finite": finite},
        fix="Restore the random state for the recomputation (torch.utils.checkpoint's "
            "preserve_rng_state=True, its default; a hand-written checkpoint helper must save "
            "and reset the generator), or do not checkpoint the segment with randomness "
            "(dropout, RReLU) in it; compare one step's gradients with checkpointing off.")
