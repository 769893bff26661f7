"""PPO_RATIO_ALWAYS_ONE: PPO's probability ratio ``exp(log_prob - old_log_prob)`` is exactly
1 on every measured step, the first minibatch's and the ones after optimizer steps alike
(``run.observed.ppo_ratios``, ``monitor/ppo_ratios.py``).

The old log-probability must be the one the sampling policy gave when the rollout was
collected; recomputed from the current parameters (``log_prob.detach()``, a stop-gradient
of the same distribution) it always equals the new one, the ratio is 1, the clip never
acts, and PPO's epochs over one rollout become plain, unclipped steps on stale data
(tensorforce/tensorforce#312). A healthy loop's ratio is 1 on the first minibatch of a
rollout only. A loop that makes a single update per rollout (a fresh rollout every step)
also reads 1 everywhere, and is healthy: its clip has nothing to do. So the warning needs
the rollout to be trained on again: most rows of a later sampled batch already seen in an
earlier one (``run.observed.batch_rows``, the monitor's count of distinct input rows);
without that it is info.
"""
from ..findings import Finding
from ..observed import BATCH_ROWS_REMEMBERED
from .context import observed_list
from .graph import rule

PPO_ROLLOUT_REUSED_SHARE = 0.5   # [design] share of a later batch's rows seen in earlier
                                 # batches that says the rollout is trained on again (epochs
                                 # over one rollout: 75-100% from the second epoch on; fresh
                                 # rollouts from a dataset of 1,797 digits: under 20%)
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
    reused = rollout_reused(observed_list(ctx, "batch_rows"))
    return Finding(
        code="PPO_RATIO_ALWAYS_ONE", severity="warning" if reused else "info", where="loss",
        step=steps[0],
        message=f"The probability ratio exp(log_prob - old_log_prob) is exactly 1 in every "
                f"entry on all {len(steps)} measured steps, also after optimizer steps: the "
                "old log-probabilities are the current policy's own (recomputed from the same "
                "parameters, or log_prob.detach()), not the sampling policy's. The clip never "
                "acts, and every epoch over the rollout is an unclipped step on stale data "
                "(a loop that makes one update per rollout reads 1 too: its clip does "
                "nothing either).",
        evidence={"steps": steps[:10], "min_steps": PPO_RATIO_MIN_STEPS,
                  "rollout_reused": reused},
        fix="Store the log-probabilities when the rollout is collected (under no_grad, "
            "with the policy that chose the actions) and use those as old_log_prob in every "
            "epoch.")


def rollout_reused(batch_rows):
    """Whether a sampled batch after the first holds mostly rows an earlier one held: the
    same rollout trained on again. ``batch_rows``: (step, batch size, distinct rows, distinct
    rows seen so far) per sampled record."""
    for (_, _, _, before), (_, batch, _, after) in zip(batch_rows, batch_rows[1:]):
        if before >= BATCH_ROWS_REMEMBERED:
            return False           # the count stopped growing there: nothing to tell
        if batch > 0 and 1 - (after - before) / batch >= PPO_ROLLOUT_REUSED_SHARE:
            return True
    return False
