"""Update rules written by hand that get the rule itself wrong (real-bug batch 99:
optimizers and parameter updates written by hand).

Read from ``run.observed.update_fits`` (``monitor/update_samples.py``): for a few sampled
entries of the largest weights, the weight and gradient before each of the first optimizer
steps and the weight after, fitted two ways per step.

WEIGHT_DECAY_SIGN_INVERTED: the update is exactly a linear function of the gradient and
the weight, ``delta = a * g + b * w`` with a < 0 (a descent), and b > 0 on (almost) every
step: the weight term pushes each weight away from zero. An L2 penalty or weight decay adds
``+decay * w`` to the gradient, so b = -lr * decay <= 0; b > 0 is a decay of
``-b / a`` entered with the wrong sign (``grad - decay * w``; andersbll/deeppy#17,
chainer/chainer#261). torch's own optimizers refuse a negative weight_decay (ValueError), so
only a hand-written step gives it: weights the gradient does not hold grow by
(1 + lr * decay) per step, without bound.

GRADIENTS_ACCUMULATING (``update_fit_readers.velocity_never_decays``, called by ``setup``):
the update is exactly ``c * previous update + a * g`` with c = 1: the step is the sum of
every gradient so far. Heavy-ball momentum has c = its momentum, below 1 (0.9 usually,
0.99-0.999 at most, Sutskever et al. 2013); c = 1 is a velocity that never decays
(``v = v + mu * g``, ooples/AiDotNet#2008) or .grad never cleared under plain SGD.
Their healthy look-alikes: SGD with or without weight decay (b = -lr * decay or ~1e-10),
momentum SGD (c = 0.9-0.99), Nesterov, Adam, AdamW, RMSprop (not linear in either pair:
no fit) - measured on the digits MLP in the batch 99 commit.
"""
from ..findings import Finding
from .graph import rule
from .update_fit_readers import (MIN_FITTED_STEPS, MIN_INVERTED_DECAY, SAME_RULE_SHARE,
                                 update_fit_rows)


@rule(produces="WEIGHT_DECAY_SIGN_INVERTED",
      explains={"LOSS_OSCILLATING", "LOSS_DIVERGING", "EXPLODING_ACTIVATIONS",
                "EXPLODING_GRADIENTS", "LR_TOO_HIGH"})
def weight_decay_sign_inverted(ctx):
    inverted = []
    for name, steps, linear, a, b, positive, *_ in update_fit_rows(ctx):
        if steps < MIN_FITTED_STEPS or linear < SAME_RULE_SHARE or not a < 0 or \
                positive < SAME_RULE_SHARE:
            continue
        decay = b / -a
        if decay >= MIN_INVERTED_DECAY:
            inverted.append((name, decay, a, b, linear))
    if not inverted:
        return None
    name, decay, a, b, linear = inverted[0]
    names = [row[0] for row in inverted]
    return Finding(
        code="WEIGHT_DECAY_SIGN_INVERTED", severity="error", where=", ".join(names),
        message=f"Each optimizer step moves {name} by {a:.3g} x its gradient {b:+.3g} x the "
                f"weight itself (fitted exactly on {linear:.0%} of the sampled steps): a weight "
                f"decay of {decay:.3g} entered with the wrong sign. It pushes every weight away "
                f"from zero by a factor (1 + {b:.2g}) per step instead of pulling it in, so the "
                "weights the gradient does not hold grow without bound (torch's optimizers "
                "refuse a negative weight_decay; a hand-written step subtracted the penalty).",
        evidence={"parameters": names, "gradient_coefficient": a, "weight_coefficient": b,
                  "implied_decay": -decay, "linear_share": linear,
                  "threshold": MIN_INVERTED_DECAY},
        fix="Add the penalty to the gradient: grad + decay * w (or shrink the weight: "
            "w -= lr * decay * w), never grad - decay * w; or use the optimizer's "
            "weight_decay=.")
