"""WEIGHTS_REQUANTIZED_IN_PLACE: the loop writes quantized (or binarized) values into the
trained parameters themselves before every optimizer step, so the optimizer's updates are
taken on grid values and rounded back onto the grid at the next write
(``run.observed.weights_on_grid``, ``monitor/rewritten_weights.py``).

Quantization-aware training keeps float "latent" weights and quantizes a copy in the forward
pass; the gradient reaches the float weights through a straight-through estimator and small
updates accumulate there until a weight crosses to the next level. Writing the quantized
values into the parameter (``self.weight.data = quantize(self.weight.data)``, distiller's
``train_with_fp_copy=False``: IntelLabs/distiller#362; ``self.weight = qweight``:
eladhoffer/quantized.pytorch#12), or BinaryNet's copy trick without restoring the real
weights before ``optimizer.step()`` (itayhubara/BinaryNet.pytorch#19), throws the float
weights away: every update smaller than half a grid step is undone, the rest is inflated to
a whole step, and the layer freezes or trains on rounding noise.

Seen as: between (almost) every two optimizer steps something wrote the followed weights,
the weights the optimizer starts each step from lie on a grid (their nonzero entries are
integer multiples of one step), and the optimizer's own result does not (its update leaves
the grid). Float weights are on no grid; weights a loop clips, masks or max-norms are written
only in part and stay off a grid; 16-bit weights are stepped by the optimizer, not written.
"""
from ..findings import Finding
from .context import observed_list
from .graph import rule

GRID_MIN_STEPS = 20          # [design] optimizer steps followed before judging: the
                             # monitor follows up to 400; a quantizer writes on every one
GRID_WRITTEN_SHARE = 0.9     # [design] steps after which the weights were written: 1.00 in
                             # the three batch-106 reports' reproductions, 0.00 in their fixes
                             # (a deliberate periodic copy - an EMA swap - writes on few)
GRID_BEFORE_SHARE = 0.9      # [design] pre-step weights on a grid: 1.00 in the reproductions
                             # (4-bit, 8-bit, sign), 0.00 for float weights
GRID_AFTER_SHARE = 0.1       # [design] post-step weights on a grid at most: 0.00 in the
                             # reproductions - the optimizer's update leaves the grid, which
                             # is what the next write undoes


@rule(produces="WEIGHTS_REQUANTIZED_IN_PLACE",
      explains={"LOSS_PLATEAU", "LOSS_DIVERGING", "LOSS_OSCILLATING", "LR_TOO_LOW",
                "PARAMS_NOT_UPDATING", "WEIGHTS_REWRITTEN_OUTSIDE_OPTIMIZER"})
def weights_requantized_in_place(ctx):
    rows = observed_list(ctx, "weights_on_grid")
    if not rows:
        return None
    steps, written, before, after, kept = rows[-1]
    if steps < GRID_MIN_STEPS or written < GRID_WRITTEN_SHARE or \
            before < GRID_BEFORE_SHARE or after > GRID_AFTER_SHARE:
        return None
    return Finding(
        code="WEIGHTS_REQUANTIZED_IN_PLACE", severity="warning", step=None,
        message=f"Over the first {steps} optimizer steps the weights were written between "
                f"steps after {100 * written:.0f}% of them, and each step started from "
                f"weights on a grid ({100 * before:.0f}% of the sampled rows are integer "
                f"multiples of one step) while the optimizer's result was off it "
                f"({100 * after:.0f}% on a grid): the loop writes quantized or binarized "
                "values into the trained parameters themselves. The float weights are lost; "
                "each update smaller than half a grid step is rounded away at the next write "
                f"(the median step kept {100 * kept:.0f}% of the optimizer's update), the "
                "rest becomes a whole grid step, and the quantized layers freeze or train "
                "on rounding noise.",
        evidence={"steps_followed": steps, "written_share": round(written, 3),
                  "pre_step_on_grid_share": round(before, 3),
                  "post_step_on_grid_share": round(after, 3),
                  "median_update_kept": round(kept, 3),
                  "thresholds": {"written": GRID_WRITTEN_SHARE, "before": GRID_BEFORE_SHARE,
                                 "after": GRID_AFTER_SHARE}},
        fix="Keep the float weights as the parameters and quantize a copy in the forward pass "
            "with a straight-through estimator: w_q = w + (quantize(w) - w).detach(); with "
            "BinaryNet's copy trick restore the real weights before optimizer.step() "
            "(p.data.copy_(p.org)).")
