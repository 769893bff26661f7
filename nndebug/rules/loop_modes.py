"""A rule about the train/eval mode of the steps a hand-written loop takes (real-bug batch
102), read from what a hook that stays on for the whole run saw between the sparse records
(its twin, eval-mode micro-batches, is ``setup.training_in_eval_mode``'s second reading):
bursts of optimizer steps taken while the model is in eval mode, between two ``step()``
  calls or after the last (``observed.eval_mode_step_bursts``,
  ``monitor/optimizer_steps.py``): an evaluation loop that calls backward() and
  optimizer.step() trains on the data it then reports a score for.
"""
from ..findings import Finding
from .context import observed_list
from .graph import rule

BURST_MIN_STEPS = 2        # [design] optimizer steps in eval mode within one watched step:
                           # a loop that trains in eval mode on purpose (frozen batch norm)
                           # takes one per step(), an evaluation loop one per test batch


@rule(produces="OPTIMIZER_STEPPED_DURING_EVALUATION")
def optimizer_stepped_during_evaluation(ctx):
    """Several optimizer steps between two step() calls while the model was in eval mode,
    in a run that otherwise steps in train mode."""
    rows = [row for row in observed_list(ctx, "eval_mode_step_bursts")
            if row[1] >= BURST_MIN_STEPS and row[2] > 0]
    if not rows:
        return None
    total = sum(row[1] for row in rows)
    return Finding(
        code="OPTIMIZER_STEPPED_DURING_EVALUATION", severity="warning", step=rows[0][0],
        message=f"The optimizer stepped {total} times while the model was in eval mode, in "
                f"{len(rows)} burst(s) between two step() calls (first after step "
                f"{rows[0][0]}, up to {max(row[1] for row in rows)} steps in one), though "
                f"training stepped in train mode ({rows[0][2]} steps before it): an evaluation "
                "loop that calls backward() and optimizer.step() trains the model on the data "
                "it evaluates, and the score it reports is flattered by that. model.eval() "
                "changes dropout and batch norm; it does not stop updates.",
        evidence={"bursts": [list(row) for row in rows[:20]], "eval_mode_steps": total,
                  "threshold_steps": BURST_MIN_STEPS},
        fix="Evaluate under torch.no_grad() (or torch.inference_mode()) with no backward() "
            "and no optimizer.step(); train only in the training loop.")
