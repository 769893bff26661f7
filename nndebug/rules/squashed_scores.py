"""CRITIC_OUTPUT_SQUASHED: the loss averages a sigmoid of a layer's raw score, with no log
and no target (``run.observed.squashed_score_terms``).

A Wasserstein GAN's losses read the critic's score as it is (``-critic(fake).mean()``,
``critic(fake).mean() - critic(real).mean()``). A critic ending in a sigmoid, kept from a
standard GAN's discriminator (bojone/T-GANs#3, "a handwriting mistake"), turns the score
into a probability: once the critic tells real from fake the sigmoid saturates and the
gradient the generator gets is scaled by its vanishing slope. A standard GAN takes the log
of that probability in a binary cross-entropy, which undoes the squashing; a plain mean of
it does not. The harm shows as slow or stalled generator learning and a generator loss
that rises (LOSS_DIVERGING, LOSS_PLATEAU), which this cause explains.

Read on the first recorded steps from the loss's graph (``monitor/squashed_scores.py``): an
addend of the loss's top-level sum that is a mean or sum of a ``sigmoid`` fed straight by
a linear layer. A smooth ranking loss (a sigmoid of a difference of scores) and a soft
Dice (a sigmoid times targets) are not fed by a layer and are left alone.
"""
from ..findings import Finding
from .context import observed_list
from .graph import rule

SQUASHED_MIN_STEPS = 2       # [design] measured steps whose loss averages a squashed score:
                             # the loop's habit, not one odd step (three are measured)


@rule(produces="CRITIC_OUTPUT_SQUASHED", explains={"LOSS_DIVERGING", "LOSS_PLATEAU"})
def critic_output_squashed(ctx):
    rows = observed_list(ctx, "squashed_score_terms")
    steps = sorted({step for step, terms in rows if terms > 0})
    if len(steps) < SQUASHED_MIN_STEPS:
        return None
    return Finding(
        code="CRITIC_OUTPUT_SQUASHED", severity="warning", where="loss", step=steps[0],
        message=f"On {len(steps)} measured steps the loss averages sigmoid(score) of a "
                "layer's raw score with no log and no target, as a Wasserstein GAN's loss "
                "reads a critic that ends in a sigmoid. The sigmoid saturates once the "
                "critic separates real from fake, and its vanishing slope scales every "
                "gradient that passes it: the model behind the score learns slowly or not "
                "at all.",
        evidence={"steps": steps, "terms": max(terms for _, terms in rows)},
        fix="Remove the sigmoid after the critic's last layer (a Wasserstein critic's "
            "score is unbounded); for a standard GAN, keep the logits and use "
            "F.binary_cross_entropy_with_logits.")
