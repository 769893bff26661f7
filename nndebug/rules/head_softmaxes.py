"""SOFTMAX_ACROSS_HEADS: an attention softmax normalised over a merged axis (heads x keys)
whose weights are then applied to the keys of each head separately.

Reported in DETR's mask head (facebookresearch/detr#247: ``F.softmax(weights.flatten(2),
dim=-1)`` on [b, q, heads, h, w] weights, where ``flatten(3)`` was meant; the maintainer
confirmed it and the fix gave better panoptic results). Flattening the heads into the
normalised axis gives all heads ONE unit of attention to share: a head whose scores are
lower attends to almost nothing, and the heads no longer attend independently. Nothing
fails; the model learns less (a ViT with 8 heads on the digits: 0.79 test accuracy against
0.89).

Read from ``run.observed.head_softmaxes`` (``monitor/head_softmaxes.py``): on the first
recorded steps, softmaxes over an axis a reshape merged from 2+ axes, whose weights feed a
matrix product that contracts a whole fraction of that axis. Judged on shapes: no
threshold to tune but the steps that must show it.
"""
from ..findings import Finding
from .context import observed_list
from .graph import rule

HEAD_SOFTMAX_MIN_STEPS = 2   # [design] measured steps showing it: the forward's wiring, not one
                             # branch taken once


@rule(produces="SOFTMAX_ACROSS_HEADS")
def softmax_across_heads(ctx):
    rows = observed_list(ctx, "head_softmaxes")
    showing = [row for row in rows if row[1]]
    if len(showing) < HEAD_SOFTMAX_MIN_STEPS or len(showing) < len(rows):
        return None
    step, found = showing[0]
    group, contracted, before = found[0]
    pieces = group // contracted
    before_text = "(" + ", ".join(str(n) for n in before) + ")"
    return Finding(
        code="SOFTMAX_ACROSS_HEADS", severity="warning", where="forward", step=step,
        message=f"A softmax normalises over {group} numbers that a reshape merged from "
                f"{before_text} scores, but the product that applies its weights contracts "
                f"{contracted} of them at a time: each weight row is used in {pieces} "
                f"pieces (one per head) that no longer sum to 1 ({len(found)} such softmax"
                f"{'es' if len(found) > 1 else ''} per forward, on each of {len(showing)} "
                "measured steps). In multi-head attention the heads then share one unit of "
                "attention instead of each having its own: a head whose scores are lower "
                "attends to almost nothing.",
        evidence={"normalised_over": int(group), "contracted": int(contracted),
                  "pieces": int(pieces), "scores_shape": list(before),
                  "softmaxes": len(found), "steps": [row[0] for row in showing][:10],
                  "min_steps": HEAD_SOFTMAX_MIN_STEPS},
        fix="Softmax over each head's keys alone: scores.softmax(dim=-1) on (B, heads, "
            "queries, keys), or flatten only the key axes (weights.flatten(3) on [b, q, "
            "heads, h, w], not flatten(2)).")
