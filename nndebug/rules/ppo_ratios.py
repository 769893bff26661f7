"""PPO_RATIO_ALWAYS_ONE: PPO's probability ratio ``exp(log_prob - old_log_prob)`` is exactly
1 on every measured step, the first minibatch's and the ones after optimizer steps alike
(``run.observed.ppo_ratios``, ``monitor/ppo_ratios.py``).

The old log-probability must be the one the sampling policy gave when the rollout was
collected; recomputed from the current parameters (``log_prob.detach()``, a stop-gradient
of the same distribution) it always equals the new one, the ratio is 1, the clip never
acts, and PPO's epochs over one rollout become plain, unclipped steps on stale data
(tensorforce/tensorforce#312). A healthy loop's ratio is 1 on the first minibatch of a
rollout only. A loop that makes a single update per rollout also reads 1 everywhere: its
clip does nothing either, which the finding says.
"""
from ..findings import Finding
from .context import observed_list
from .graph import rule

PPO_RATIO_MIN_STEPS = 3      # [design] measured steps, all with the ratio exactly 1: the first
                             # minibatch of a rollout is 1 in every loop; two more after
                             # optimizer steps are not, unless the ratio is the policy's own


@rule(produces="PPO_RATIO_ALWAYS_ONE",
      explains={"LOSS_PLATEAU", "LOSS_OSCILLATING", "LOSS_DIVERGING"})
def ppo_ratio_always_one(ctx):
    rows = observed_list(ctx, "ppo_ratios")
    steps = sorted({int(r[0]) for r in rows})
    if len(steps) < PPO_RATIO_MIN_STEPS or any(r[1] != 0.0 for r in rows):
        return None
    return Finding(
        code="PPO_RATIO_ALWAYS_ONE", severity="warning", where="loss", step=steps[0],
        message=f"The probability ratio exp(log_prob - old_log_prob) is exactly 1 in every "
                f"entry on all {len(steps)} measured steps, also after optimizer steps: the "
                "old log-probabilities are the current policy's own (recomputed from the same "
                "parameters, or log_prob.detach()), not the sampling policy's. The clip never "
                "acts, and every epoch over the rollout is an unclipped step on stale data "
                "(a loop that makes one update per rollout reads 1 too: its clip does "
                "nothing either).",
        evidence={"steps": steps[:10], "min_steps": PPO_RATIO_MIN_STEPS},
        fix="Store the log-probabilities when the rollout is collected (under no_grad, "
            "with the policy that chose the actions) and use those as old_log_prob in every "
            "epoch.")
