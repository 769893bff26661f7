"""Pruning that does not hold (real-bug batch 94: pruning, weight masks and sparsity).

PRUNED_WEIGHTS_REGROW: part of a weight matrix was set to exactly zero between two steps
(pruning by hand: ``w.mul_(mask)``), and one optimizer step later most of those zeros are
gone. The optimizer's state does it - SGD's momentum buffer and Adam's moments, filled
before pruning, move entries whose gradient is now masked to zero
(ruihangdu/PyTorch-Deep-Compression#2; discuss.pytorch.org "How to prune weights in
PyTorch") - or nothing masks the pruned entries' gradient at all. The sparse network the
user meant to train does not exist: it is dense again after one step, and shipping it with
the mask changes what it computes. Read from ``run.observed.pruned_weight_regrowth``
(``monitor/pruned_weights.py``: the zero share of each weight matrix at every optimizer
step's pre-hook, and what became of the zeros that appeared at once). Its healthy
look-alikes stay silent by construction: a mask re-applied after every step keeps the
zeros at the next pre-hook; dense-sparse-dense training releases its mask after a sparse
phase of many steps, not one; RigL-style regrowth revives a small share of the pruned
entries; weights clamped at zero (non-negative layers) keep their share of zeros.

LAYER_PRUNED_ENTIRELY: a ``torch.nn.utils.prune`` mask that masks every entry of a layer's
weight (a norm layer's scale, a linear or convolution weight): no signal passes through
that layer, only its bias (Eric-mingjie/rethinking-network-pruning#18: a global threshold
over every layer's batch-norm scales took all the channels of one layer, "0% accuracy").
A residual network survives it (the block becomes an identity), so it is a warning when
learning is poor and an info note otherwise. Read from ``run.observed.pruned_layers``.
"""
from ..findings import Finding
from .curve import learning_poor
from .graph import rule

REGROWN_SHARE = 0.5      # [design] most of the pruned entries non-zero one step after the
                         # pruning: the bugs measured 0.83-0.94 (batch 94's two cases, SGD
                         # momentum and Adam); RigL regrows at most its drop fraction (0.3,
                         # Evci et al. 2020) of the pruned entries per update, and a mask
                         # re-applied after each step leaves 0
SPARSITY_LOST = 0.5      # [design] the matrix's zero share one step later at most half the
                         # pruned share: clamped non-negative weights keep theirs
FULLY_MASKED = 1.0       # [design] every entry of the layer's weight masked


@rule(produces="PRUNED_WEIGHTS_REGROW")
def pruned_weights_regrow(ctx):
    observed = getattr(ctx.run, "observed", None)
    rows = [row for row in (getattr(observed, "pruned_weight_regrowth", None) or [])
            if row[5] >= REGROWN_SHARE and row[4] <= SPARSITY_LOST * row[3]]
    if not rows:
        return None
    step, name, _, pruned, later, regrown = max(rows, key=lambda row: row[3] * row[5])
    names = sorted({row[1] for row in rows})
    shown = ", ".join(names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")
    return Finding(
        code="PRUNED_WEIGHTS_REGROW", severity="warning", where=name, step=step,
        message=f"{pruned:.0%} of {name} was set to exactly zero before step {step} (pruned), "
                f"and one optimizer step later {regrown:.0%} of those entries were no longer "
                f"zero ({later:.0%} of the matrix still zero); the same in {shown}. The "
                f"pruning does not hold: the optimizer's momentum or Adam moments (filled "
                f"before pruning) move entries whose gradient is masked, or their gradient is "
                f"not masked at all, so the network trains dense again and applying the mask "
                f"afterwards changes what it computes.",
        evidence={"step": step, "pruned_share": pruned, "zero_share_next_step": later,
                  "regrown_share": regrown, "parameters": names,
                  "threshold": REGROWN_SHARE},
        fix="Keep the mask in the forward (torch.nn.utils.prune, or weight * mask in the "
            "layer) or multiply the weights by the mask again right after every "
            "optimizer.step(); when masking gradients instead, also zero the pruned entries "
            "of the optimizer's state (momentum_buffer, exp_avg, exp_avg_sq) or build a new "
            "optimizer after pruning.")


@rule(produces="LAYER_PRUNED_ENTIRELY",
      explains={"DEAD_RELU", "LOSS_AT_CHANCE", "LOSS_PLATEAU", "COLLAPSED_ACTIVATIONS"})
def layer_pruned_entirely(ctx):
    observed = getattr(ctx.run, "observed", None)
    rows = [row for row in (getattr(observed, "pruned_layers", None) or [])
            if row[1] == "weight" and row[3] >= FULLY_MASKED]
    if not rows:
        return None
    module, _, entries, _ = rows[0]
    names = [row[0] for row in rows]
    poor = learning_poor(ctx)
    return Finding(
        code="LAYER_PRUNED_ENTIRELY", severity="warning" if poor else "info", where=module,
        message=f"The pruning mask on {module}.weight masks all {entries} of its entries"
                + (f" (also: {', '.join(names[1:4])})" if len(names) > 1 else "")
                + ": no signal passes through that layer, only its bias, so everything after "
                  "it sees a constant" + (" and the run does not learn" if poor else "")
                + ". A global pruning threshold (one quantile over every layer's weights or "
                  "batch-norm scales) does this when one layer's values all lie below the "
                  "others'; only a residual connection around the layer lets the signal pass.",
        evidence={"layers": names, "entries": entries, "learning_poor": bool(poor)},
        fix="Prune less, or cap the share pruned per layer (keep at least a few channels in "
            "every layer: compute the threshold per layer, or clamp the global one at each "
            "layer's largest values).")
