"""LOG_PROBS_POOLED_BEFORE_WEIGHTING: a policy-gradient loss that averages (or sums) many
actions' log-probabilities into one number and only then multiplies it by a vector of
returns or advantages (``run.observed.pooled_log_probs``, ``monitor/pooled_log_probs.py``).

``-(log_probs.mean() * returns).sum()`` credits every action with the sum of every step's
return: which step earned what is lost, and the agent learns only what whole episodes
share (Farama-Foundation/Gymnasium#1336). The policy gradient needs one product per
action, ``-(log_probs * returns).sum()``. Named from the graph alone: a whole reduction of
picked log-probabilities, multiplied into a result of several entries, is no per-action
weighting. A scalar weight (``log_probs.sum() * episode_return``) is not judged.
"""
from ..findings import Finding
from .context import observed_list
from .graph import rule


@rule(produces="LOG_PROBS_POOLED_BEFORE_WEIGHTING",
      explains={"LOSS_PLATEAU", "LOSS_OSCILLATING", "LOSS_DIVERGING"})
def log_probs_pooled_before_weighting(ctx):
    rows = observed_list(ctx, "pooled_log_probs")
    if not rows:
        return None
    step, pooled, weighted = rows[0]
    return Finding(
        code="LOG_PROBS_POOLED_BEFORE_WEIGHTING", severity="warning", where="loss", step=step,
        message=f"The loss reduces {pooled} picked log-probabilities to ONE number (a mean or "
                f"sum over all of them) and then multiplies it by {weighted} weights: every "
                "action is credited with the sum of every step's return or advantage. The "
                "policy gradient weighs each action's own log-probability by its own return; "
                "pooled first, the agent cannot tell which step earned what.",
        evidence={"log_probs_pooled": int(pooled), "weights": int(weighted),
                  "steps": sorted({int(r[0]) for r in rows})[:10]},
        fix="Multiply element-wise before reducing: loss = -(log_probs * returns).sum() "
            "(or .mean()), with one log-probability per action.")
