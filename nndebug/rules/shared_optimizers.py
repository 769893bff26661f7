"""PARAMS_IN_TWO_OPTIMIZERS: two optimizers stepped the watched parameters in one step.

Each network of a multi-network loop (GAN, actor-critic, teacher-student) gets its own
optimizer. One built over the wrong network's parameters (``optim.Adam(
generator.parameters())`` for the discriminator: bohaohuang/mrs#68) steps the watched
network a second time per step, with its own learning rate and moments, and leaves the
network it was meant for in no optimizer: that network keeps its random weights. Read from
``run.observed.shared_optimizers`` (``monitor/shared_optimizers.py``): the watched steps on
which two distinct optimizer objects, at the top level, stepped and both hold the same
watched tensors (two optimizers over disjoint parts of the model are healthy). A wrapper that steps an inner optimizer from its own step (Lookahead) is one,
and an optimizer rebuilt between epochs replaces the old one: neither is two in a step.
"""
from ..findings import Finding
from .graph import rule

SHARED_MIN_STEPS = 2            # [design] watched steps showing it: two make a habit of the loop,
                         # one may be a hand-off between two optimizers (a rebuild mid-step)


@rule(produces="PARAMS_IN_TWO_OPTIMIZERS", reads={"WEIGHTS_REWRITTEN_OUTSIDE_OPTIMIZER"},
      explains={"LOSS_PLATEAU", "LOSS_AT_CHANCE", "PARAMS_NOT_UPDATING"})
def params_in_two_optimizers(ctx):
    rewritten = ctx.found.get("WEIGHTS_REWRITTEN_OUTSIDE_OPTIMIZER")
    if rewritten is not None and (rewritten.evidence or {}).get("finetune_bursts"):
        return None          # batch 86: bursts of in-place fine-tuning, named there
    observed = getattr(ctx.run, "observed", None)
    steps = list(getattr(observed, "shared_optimizers", None) or [])
    if len(steps) < SHARED_MIN_STEPS:
        return None
    first, kinds, both = steps[0]
    return Finding(
        code="PARAMS_IN_TWO_OPTIMIZERS", severity="warning", step=int(first),
        message=f"Two optimizers ({' and '.join(kinds)}) both hold {both} of the watched "
                f"model's parameter tensors and both stepped them within one step of the "
                f"loop, from step {first} on ({len(steps)} steps noted). In a loop with two networks (a GAN's generator "
                "and discriminator, an actor and a critic) this is the other network's "
                "optimizer built over this one's parameters: it steps this network on the "
                "other's turn, and the network it was meant for is in no optimizer and "
                "keeps its initial weights.",
        evidence={"steps": [int(s) for s, _, _ in steps][:10], "optimizers": list(kinds),
                  "tensors_in_both": int(both), "threshold_steps": SHARED_MIN_STEPS},
        fix="Build each optimizer over its own network's parameters (e.g. optim.Adam("
            "discriminator.parameters()) for the discriminator); give a parameter to one "
            "optimizer only.")
