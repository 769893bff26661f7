"""Policy-gradient losses: the product ``log_prob(actions) * weight`` that REINFORCE,
actor-critic and PPO minimise, read from ``run.observed.policy_gradient_terms``
(``monitor/policy_gradient_terms.py``).

POLICY_WEIGHT_NOT_DETACHED: the weight (an advantage ``reward - value``, a return built
from a critic) has a graph into the watched model's own parameters, through something
other than the log-probability's logits. The policy term then trains the critic too, by
``log_prob`` times the value's gradient: the value is pushed to wherever it makes the
surrogate smaller, against its own regression, and the baseline stops being one
(astariul/encode-attend-navigate-pytorch#2, keras-team/keras-io#194). Healthy runs detach
the weight (or compute it under no_grad): it is a constant of the graph. An entropy bonus
``p * log p`` is built from the same logits and is no weight (the monitor leaves it out).

LOG_PROB_BROADCAST: the log-probabilities picked are as many as the distribution's rows
squared: every action of the batch scored under every state, the ``(B, B)`` table torch
makes of ``dist.log_prob(actions)`` with actions of shape ``(B, 1)`` against a batch-``B``
distribution (LucasAlegre/morl-baselines#88). Each state is pushed toward every rewarded
action of the batch, and the policy loses which state asks for which. Several samples per
state (``dist.sample((k,))``) pick ``k`` times the rows, not the rows squared. The same table
made after the pick (real-bug batch 294): ``gather(1, actions)`` keeps a ``(B, 1)`` column,
and ``exp(new_log_prob - old_log_prob)`` with the old ones of shape ``(B,)`` is ``(B, B)``
(JuliaReinforcementLearning/ReinforcementLearningZoo.jl#169): the product multiplies the
rows squared while the pick took one per row.

ENTROPY_BONUS_MINIMISED: next to a policy-gradient term, the loss holds an entropy term
(``p * log p`` of one distribution) whose gradient makes descent LOWER the entropy: the
bonus was added to the loss (``loss = policy_loss + beta * entropy``) instead of
subtracted (google-deepmind/open_spiel#962, PKU-Alignment/omnisafe#133). The policy
collapses onto its first favourite before the rewards can tell it which action pays.
Minimising entropy is a method of its own in supervised and semi-supervised training
(entropy minimisation on unlabelled data); the rule speaks only where the loss is a policy
gradient, whose entropy term is always meant as an exploration bonus.
"""
from ..findings import Finding
from .context import observed_list
from .graph import rule

POLICY_MIN_STEPS = 2         # [design] measured steps showing it: the loop's habit, not one
                             # odd step (the monitor reads the first six recorded steps)


@rule(produces="POLICY_WEIGHT_NOT_DETACHED",
      explains={"LOSS_DIVERGING", "LOSS_PLATEAU", "LOSS_OSCILLATING", "DEAD_RELU"})
def policy_weight_not_detached(ctx):
    rows = [r for r in observed_list(ctx, "policy_gradient_terms") if r[1] == "model"]
    if len({r[0] for r in rows}) < POLICY_MIN_STEPS:
        return None
    return Finding(
        code="POLICY_WEIGHT_NOT_DETACHED", severity="warning", where="loss", step=rows[0][0],
        message=f"The loss multiplies the log-probability of the taken actions by a weight "
                f"that is itself computed from the watched model's parameters (not from the "
                f"same logits), on {len({r[0] for r in rows})} measured steps: the policy "
                "term also trains whatever made the weight, usually the critic's value in "
                "reward - value. The advantage is meant to be a constant of the policy "
                "gradient; with its graph kept, the value head is pushed by log_prob "
                "against its own regression and the baseline drifts.",
        evidence={"steps": sorted({int(r[0]) for r in rows})[:10], "min_steps": POLICY_MIN_STEPS},
        fix="Detach the weight in the actor's loss: advantage = (returns - values).detach() "
            "(tf.stop_gradient), and train the value with its own loss.")


@rule(produces="LOG_PROB_BROADCAST",
      explains={"LOSS_DIVERGING", "LOSS_PLATEAU", "LOSS_OSCILLATING"})
def log_prob_broadcast(ctx):
    rows = [r for r in observed_list(ctx, "policy_gradient_terms")
            if r[4] > 1 and r[4] * r[4] in (r[3], r[-1])]
    if len({r[0] for r in rows}) < POLICY_MIN_STEPS:
        return None
    step, _, _, picked, states = rows[0][:5]
    multiplied = rows[0][-1]
    return Finding(
        code="LOG_PROB_BROADCAST", severity="warning", where="loss", step=step,
        message=(f"The policy-gradient term picks {picked} log-probabilities from a "
                 f"distribution over {states} states: {states} x {states}, every action of "
                 "the batch scored under every state. dist.log_prob(actions) with actions of "
                 "shape (B, 1) against a batch-B distribution broadcasts to (B, B); each "
                 "state is then pushed toward every rewarded action of the batch."
                 if picked == states * states else
                 f"The policy-gradient term picks {picked} log-probabilities, one per state, "
                 f"but multiplies {multiplied} = {states} x {states} entries by the weight: "
                 "the picked column (B, 1) (gather(1, actions) keeps the dimension) met a (B,) "
                 "tensor - the old log-probabilities of a PPO ratio, the advantages - and "
                 "broadcast to (B, B), every state's ratio paired with every action's "
                 "advantage."),
        evidence={"picked": int(picked), "rows": int(states), "multiplied": int(multiplied),
                  "steps": sorted({int(r[0]) for r in rows})[:10]},
        fix="Give log_prob the actions with the distribution's batch shape: "
            "dist.log_prob(actions.squeeze(-1)) (one log-probability per state); after "
            "gather(1, actions), squeeze(1) before combining with (B,) tensors.")


@rule(produces="ENTROPY_BONUS_MINIMISED",
      explains={"LOSS_DIVERGING", "LOSS_PLATEAU", "LOSS_OSCILLATING"})
def entropy_bonus_minimised(ctx):
    if not observed_list(ctx, "policy_gradient_terms"):
        return None
    verdicts = observed_list(ctx, "entropy_terms")
    lowered = [v for v in verdicts if v[1] == "minimised"]
    if len({v[0] for v in lowered}) < POLICY_MIN_STEPS or any(v[1] == "maximised" for v in verdicts):
        return None
    return Finding(
        code="ENTROPY_BONUS_MINIMISED", severity="warning", where="loss", step=lowered[0][0],
        message=f"The loss is a policy gradient with an entropy term, and its gradient makes "
                f"descent lower the policy's entropy ({len(lowered)} measured steps): the "
                "exploration bonus enters the loss with the wrong sign (+ beta * entropy). "
                "The policy collapses onto the actions it first favoured instead of "
                "exploring.",
        evidence={"steps": sorted({int(v[0]) for v in lowered})[:10], "min_steps": POLICY_MIN_STEPS},
        fix="Subtract the bonus: loss = policy_loss - beta * entropy (or add beta * the "
            "negative entropy, sum(p * log p)).")
