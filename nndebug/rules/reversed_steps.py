"""REVERSED_STEPS_NOT_REALIGNED: a recurrent layer that read the sequence reversed has its
output concatenated, step by step, with an output in forward time order.

Running a second RNN on ``x.flip(1)`` builds the backward half of a bidirectional layer by
hand; its output lists the steps last to first, and must be flipped back before it is
joined to the forward half. Left as it is (ContextScout/gcn_ner#10), step t is read beside
the backward state of step T-1-t: the right-hand context every step gets belongs to another
step, and tags that depend on what follows cannot be learned. Nothing fails: the shapes
agree. The observation (``nndebug.monitor.reversed_steps``) follows each input of every
concatenation in the model's graph down to a recurrent output, counting the flips of the
time axis on the way; this rule reads it. nn.LSTM(bidirectional=True) realigns its own
backward half, and two RNNs that both read the reversed sequence agree with each other:
neither is named.
"""
from ..findings import Finding
from .graph import rule

REVERSED_MIN_STEPS = 2   # [design] the model's graph showed it on two recorded steps: its structure,
                         # not one odd forward


@rule(produces="REVERSED_STEPS_NOT_REALIGNED",
      explains={"LOSS_PLATEAU", "LOSS_AT_CHANCE"})
def reversed_steps_not_realigned(ctx):
    rows = list(getattr(ctx.run.observed, "reversed_concatenations", None) or [])
    if len({row[0] for row in rows}) < REVERSED_MIN_STEPS:
        return None
    step, reversed_layer, other_layer = rows[0]
    return Finding(
        code="REVERSED_STEPS_NOT_REALIGNED", severity="warning", where=reversed_layer,
        step=step,
        message=f"{reversed_layer} reads the sequence reversed (its input is flipped along "
                f"time) and its output, still in reversed order, is concatenated step by step "
                f"with {other_layer}'s output in forward order: step t is read beside "
                f"{reversed_layer}'s state for step T-1-t, so every step's right-hand context "
                "is another step's.",
        evidence={"steps": sorted({row[0] for row in rows}), "reversed_layer": reversed_layer,
                  "forward_layer": other_layer},
        fix=f"Flip {reversed_layer}'s output back along time before concatenating "
            "(out_bw.flip(1) when batch_first), or use one nn.LSTM/nn.GRU with "
            "bidirectional=True, which realigns its backward half itself.")
