"""The DDPG critic's loss detaches its own prediction instead of the TD target:
``mse(Q(s, a).detach(), r + gamma * Q'(s', mu'(s')))``. No gradient reaches the online
critic (it only flows into the target networks, which no optimizer holds), so the critic
stays at its random initialisation and the actor climbs a random Q surface (here it learns
to drive away from the goal: worse than doing nothing).

Silent: the loss is finite and computed every step, ``backward()`` succeeds (the target
networks require gradients), and the critic optimizer's ``step()`` quietly skips
parameters with no gradient.

Reported: "detach() on the critic value in DDPG method" -
https://github.com/Jacklinkk/Graph_CAVs/issues/9 (the DDPG agent's ``learn_one_step``
called ``detach()`` on the critic's value where DDPG detaches the critic-target value:
"this might be a typo"; the fix moves the ``detach()`` to the target).

Here: hand-written DDPG on the batch's point-reaching task (``_continuous_control``). The
bug detaches Q(s, a) and computes the goal with gradients on; fix: the goal under no_grad,
the prediction attached.

**Measured** (1000 steps, mean held-out return over 256 episodes; doing nothing scores
about -57, the best policy about -4): seed 0: -225.0 for the bug against -4.10 for the fixed
twin; seeds shifted by 1000: -235.6 against -3.88.
"""
from benchmarks.real_bugs import _continuous_control as cc

TITLE = "detach() on the critic value in DDPG method"
LINK = "https://github.com/Jacklinkk/Graph_CAVs/issues/9"
EXPECTED = ("NO_GRADIENT",)
STEPS = 1000


def goal_with_gradient(r, done, s2, target_actor, target_critic):
    return r + cc.GAMMA * (1 - done) * target_critic(s2, target_actor(s2))


def run(fixed=False, steps=STEPS, **watch):
    if fixed:
        return cc.ddpg(steps, watch)
    return cc.ddpg(steps, watch, goal=goal_with_gradient, detach_prediction=True)
