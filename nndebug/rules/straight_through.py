"""STRAIGHT_THROUGH_NOT_DETACHED: a straight-through estimator written without its detach.

``x + (q - x).detach()`` passes the quantised (rounded, sampled) ``q`` forward and ``x``'s
gradient backward. Written ``x + (q - x)`` (NTU-AIoT-Lab/EfficientFi#4) the value is the
same, but ``x`` enters twice with opposite signs and its two gradients cancel exactly:
whatever made ``x`` (a VQ encoder, the weights being rounded) gets no gradient from
anything after the estimator, only from terms that read ``x`` elsewhere (a commitment
loss). Nothing fails and the loss falls, through the layers after the estimator.

Read from ``run.observed.straight_through_cancellations``
(``monitor/straight_through_cancellations.py``): on the first recorded steps, the sums in
the graph of the model's forward of the form ``x + (q - x)``, ``(q - x) + x`` or
``x - (x - q)`` with ``q`` not computed from ``x``. An interpolation ``x + a * (q - x)`` and
the detached estimator do not match; no healthy model writes the undetached sum (it is
``q`` with ``x``'s gradient thrown away).
"""
from ..findings import Finding
from .context import observed_list
from .graph import rule

CANCELLATION_MIN_STEPS = 2   # [design] measured steps showing it: the forward's structure, not
                             # one branch taken once


@rule(produces="STRAIGHT_THROUGH_NOT_DETACHED",
      explains={"LOSS_PLATEAU", "LOSS_AT_CHANCE"})
def straight_through_not_detached(ctx):
    rows = observed_list(ctx, "straight_through_cancellations")
    showing = [(step, n) for step, n in rows if n > 0]
    if len(showing) < CANCELLATION_MIN_STEPS or len(showing) < len(rows):
        return None
    step, sums = showing[0]
    return Finding(
        code="STRAIGHT_THROUGH_NOT_DETACHED", severity="warning", where="forward", step=step,
        message=f"The model's forward computes x + (q - x) without a detach ({sums} such sum"
                f"{'s' if sums > 1 else ''} on each of {len(showing)} measured steps, q not "
                "computed from x). Its value is q, and the two gradients of x cancel exactly: "
                "a straight-through estimator written this way sends nothing back to the "
                "layers that computed x (a VQ encoder, the weights being quantised).",
        evidence={"steps": [s for s, _ in showing][:10], "sums": int(sums),
                  "min_steps": CANCELLATION_MIN_STEPS},
        fix="Detach the difference: x + (q - x).detach() passes q forward and x's gradient "
            "back (or x - x.detach() + q.detach()).")
