"""GRADIENT_CARRIED_FROM_OTHER_TURN: the watched network stepped with a gradient it got
during another network's turn, still in its ``.grad`` under its own loss's gradient.

Two networks trained in turns (a GAN's generator and discriminator) share backward passes:
the generator's loss goes back through the discriminator and leaves a gradient there. The
discriminator's turn must clear it before its own backward; clearing only after its step
(Lightning-AI/pytorch-lightning#557) adds the generator's gradient, which asks the
discriminator to call the fakes real, to its own, and it learns to tell them apart far
worse. Read from ``run.observed.other_turn_gradients`` (``monitor/other_turn_gradients.py``):
on the first watched steps, whether a gradient the watched network held when another
optimizer stepped was still in ``.grad`` (plus what later backward passes delivered) when
its own optimizer stepped ("carried"), or cleared first ("cleared"). One backward through
both networks followed by both optimizers (an actor-critic's summed loss) gives no verdict.
"""
from ..findings import Finding
from .context import observed_list
from .graph import rule

CARRIED_MIN_STEPS = 2    # [design] steps showing it: two make it the loop's order, one may
                         # be a first step before the loop settles


@rule(produces="GRADIENT_CARRIED_FROM_OTHER_TURN",
      explains={"LOSS_PLATEAU", "LOSS_AT_CHANCE", "LOSS_DIVERGING", "LOSS_OSCILLATING"})
def gradient_carried_from_other_turn(ctx):
    rows = observed_list(ctx, "other_turn_gradients")
    carried = [int(row[0]) for row in rows if row[1] == "carried"]
    cleared = [int(row[0]) for row in rows if row[1] == "cleared"]
    if len(carried) < CARRIED_MIN_STEPS or len(carried) <= len(cleared):
        return None
    return Finding(
        code="GRADIENT_CARRIED_FROM_OTHER_TURN", severity="warning", step=carried[0],
        message="The watched network's parameters held a gradient while another optimizer "
                "stepped (another network's turn: a GAN generator's loss also flows back "
                "through the discriminator), and that gradient was still in .grad, under "
                "this network's own loss's gradient, when its optimizer stepped "
                f"(steps {carried[:5]}). Its update mixes in the other network's objective "
                "(the generator's 'call the fakes real'), which pulls against its own.",
        evidence={"carried_steps": carried[:10], "cleared_steps": cleared[:10],
                  "threshold_steps": CARRIED_MIN_STEPS},
        fix="Clear this network's gradients at the start of its own turn "
            "(opt_d.zero_grad() before d_loss.backward()), not only after its step.")
