"""RNG_RESEEDED: the global random generator seeded again and again, with the same seed,
while training runs.

A seed set once, before training, makes the run reproducible. The same seed set again
inside the loop rewinds the generator: the shuffles, dropout masks, random augmentations and
noise drawn after each seeding repeat those drawn after the previous one, so every epoch
sees the batches in the same order and the same "random" variations. Public report: "Bug in
diffusers basic training tutorial", https://github.com/huggingface/diffusers/issues/7991
(``generator=torch.manual_seed(config.seed)`` in the evaluation "rewinds the dataloader
shuffling, leading to overfitting due to the model see same sequence of training
examples"). A different seed each epoch (``seed + epoch``) repeats nothing and is not
flagged.

Read from ``run.observed.seed_calls`` (``monitor/seed_calls.py``): ``(step, seed)`` of each
``torch.manual_seed`` call while watching.
"""
from collections import Counter

from ..findings import Finding
from .context import observed_list
from .graph import rule

MIN_SAME_SEED_STEPS = 3      # [design] one seed set at three different steps or more: a staged
                             # recipe (a new stage, a resume) seeds once or twice


def repeated_seed(calls):
    """``(seed, steps)`` of the seed set at the most different steps, when that is at least
    MIN_SAME_SEED_STEPS; else None. ``calls``: [(step, seed)]."""
    steps = {}
    for step, seed in calls:
        steps.setdefault(seed, set()).add(step)
    if not steps:
        return None
    seed, count = Counter({s: len(v) for s, v in steps.items()}).most_common(1)[0]
    return (seed, sorted(steps[seed])) if count >= MIN_SAME_SEED_STEPS else None


@rule(produces="RNG_RESEEDED", explains={"DATA_ORDER_REPEATS"})
def rng_reseeded(ctx):
    found = repeated_seed(observed_list(ctx, "seed_calls"))
    if found is None:
        return None
    seed, steps = found
    return Finding(
        code="RNG_RESEEDED", severity="warning", where="torch.manual_seed", step=steps[0],
        message=f"torch.manual_seed({seed}) was called at {len(steps)} different steps while "
                f"training (first at step {steps[0]}): each call rewinds the global random "
                "generator, so the shuffles, dropout masks and random augmentations after it "
                "repeat those after the previous call (every epoch the same order of "
                "batches).",
        evidence={"seed": seed, "steps": steps[:16], "calls": len(steps)},
        fix="Seed once, before training. Where a step needs its own reproducible numbers "
            "(sampling images in an evaluation), draw them from a private generator: "
            "torch.Generator().manual_seed(seed), passed as generator=.")
