"""LOSS_TERM_DETACHED_FROM_MODEL: a term of the watched model's loss reaches only another
network's parameters, and that network's optimizer drops its gradient.

A GAN generator's adversarial loss computed on ``fake.detach()`` (nikhilsinghmus/
image2reverb#37): the term's graph runs through the discriminator and stops at the cut, so
the generator trains on its other terms alone (an L1 term: every parameter still gets a
gradient, the loss falls). The discriminator's parameters got the term's gradient, but its
optimizer clears it before stepping: the term moves the loss's value and trains nothing.

Read from ``run.observed.detached_terms`` (``monitor/detached_terms.py``): for each addend of
the loss's top-level sum that reaches parameters requiring a gradient but none the watched
model has or its optimizer holds, what the optimizer of those parameters did with the
gradient: stepped with it, or dropped it. Healthy loops stay silent: two networks' losses
summed while one is watched (an actor and a critic: the critic's optimizer steps with the
gradient), a discriminator's own step on ``fake.detach()`` (its terms reach the watched
discriminator), a constant regulariser (no graph, or no parameters).
"""
from ..findings import Finding
from .context import observed_list
from .graph import rule

DETACHED_MIN_STEPS = 2       # [design] measured steps with the gradient dropped: the loop's
                             # habit, not a hand-off


@rule(produces="LOSS_TERM_DETACHED_FROM_MODEL",
      explains={"LOSS_PLATEAU", "LOSS_AT_CHANCE"})
def loss_term_detached_from_model(ctx):
    verdicts = observed_list(ctx, "detached_terms")
    dropped = [v for v in verdicts if v[3] == "dropped"]
    if len(dropped) < DETACHED_MIN_STEPS or any(v[3] == "stepped" for v in verdicts):
        return None
    step, addend, tensors, _ = dropped[0]
    return Finding(
        code="LOSS_TERM_DETACHED_FROM_MODEL", severity="warning", where="loss", step=step,
        message=f"A term of the loss ({addend}) reaches none of the watched model's "
                f"parameters: its gradient goes to {tensors} parameter tensors of another "
                f"network only, and that network's optimizer clears it before stepping "
                f"({len(dropped)} measured steps). The term moves the loss's value and trains "
                "nothing; the watched model learns from the other terms alone (a GAN "
                "generator's adversarial loss computed on fake.detach() is this).",
        evidence={"steps": [int(v[0]) for v in dropped][:10], "addend": addend,
                  "other_tensors": int(tensors), "min_steps": DETACHED_MIN_STEPS},
        fix="Keep the path from the watched model's output to this term: no .detach() "
            "(or no_grad) on what the other network judges in this model's step (detach "
            "only in the other network's own step).")
