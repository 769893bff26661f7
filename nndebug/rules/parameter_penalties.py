"""WEIGHT_DECAY_APPLIED_TWICE: the loss adds an L2 penalty on the parameters by hand, and
the optimizer's weight_decay regularises the same parameters again.

``weight_decay`` in a torch optimizer IS L2 regularisation (SGD and Adam add
``weight_decay x w`` to the gradient; AdamW shrinks the weights by ``lr x weight_decay``
apart from it). A loss that also adds ``l2 * sum(w ** 2)`` pulls the same weights to zero a
second time (with the same coefficient, three times as hard as either alone under Adam or
SGD: the squared term's gradient is ``2 x l2 x w``), and the model underfits by however much
the doubled pull outweighs the data (rutgerswiselab/NCR#2, "L2 regularization is performed
twice!!"). Read from ``run.observed.parameter_penalties`` (``monitor/parameter_penalties.py``):
on the first recorded steps, the watched parameters an addend of the loss squares directly,
and how many of them sit in a param group with weight_decay > 0. Either alone is healthy
and silent: a penalty by hand with weight_decay=0, or weight_decay with no penalty.
"""
from ..findings import Finding
from .context import observed_list
from .graph import rule

DECAYED_SHARE = 0.5      # [design] at least half of the penalised tensors also decayed: the
                         # two regularisers cover the same weights (a penalty on one tensor
                         # of a model whose decay covers another group is not a repeat)


@rule(produces="WEIGHT_DECAY_APPLIED_TWICE",
      explains={"LOSS_PLATEAU", "LOSS_AT_CHANCE"})
def weight_decay_applied_twice(ctx):
    rows = [row for row in observed_list(ctx, "parameter_penalties")
            if row[1] and row[2] >= DECAYED_SHARE * row[1]]
    if not rows:
        return None
    step, penalised, decayed, decay, decoupled = rows[0]
    how = ("shrinks them apart from the gradient (decoupled)" if decoupled else
           "adds weight_decay x w to their gradients")
    return Finding(
        code="WEIGHT_DECAY_APPLIED_TWICE", severity="warning", step=int(step),
        message=f"The loss adds a hand-written L2 penalty (the sum of squares or norm of "
                f"{penalised} of the watched parameter tensors), and the optimizer's "
                f"weight_decay={decay:g} already regularises {decayed} of them: it {how}. "
                "That is L2 regularisation twice over the same weights, so they are pulled "
                "to zero harder than either setting says, and the model underfits.",
        evidence={"step": int(step), "penalised_tensors": int(penalised),
                  "decayed_tensors": int(decayed), "weight_decay": float(decay),
                  "decoupled": bool(decoupled), "threshold_share": DECAYED_SHARE},
        fix="Keep one of the two: drop the penalty from the loss and keep the optimizer's "
            "weight_decay, or build the optimizer with weight_decay=0 (one group without "
            "decay for the penalised parameters).")
