"""The DDPG actor ends in ``tanh`` (actions in [-1, 1]) and its action goes to the
environment unscaled, where the environment's actions range over [-2, 2]: the agent can use
only half of its torque/velocity range, and the best policy it can learn is a
half-speed one.

Silent: every action is valid (inside the bound), the critic fits the returns it sees, the
actor climbs Q to the edge of its tanh, and the return improves - just to a worse plateau.

Reported: "DDPG pendulum action scaling" -
https://github.com/udacity/deep-reinforcement-learning/issues/41 (the course's DDPG on
Pendulum, whose torques range over [-2, 2], passed the actor's tanh output straight to
``env.step``; multiplying the action by 2.0 made the agent "converge much faster and even
much better", confirmed by another user).

Here: hand-written DDPG on the batch's point-reaching task (``_continuous_control``,
velocities in [-2, 2]^2, exploration noise and the critic's input in those units). The bug
gives the actor a tanh scaled by 1; fix: scaled by the action bound, 2.

**Measured** (1000 steps, mean held-out return over 256 episodes; doing nothing scores
about -57, the best policy about -4): seed 0: -8.59 for the bug against -4.10 for the fixed
twin; seeds shifted by 1000: -8.51 against -3.88.
"""
from benchmarks.real_bugs import _continuous_control as cc

TITLE = "DDPG pendulum action scaling"
LINK = "https://github.com/udacity/deep-reinforcement-learning/issues/41"
EXPECTED = ("ACTION_RANGE_UNDERUSED",)
STEPS = 1000


def run(fixed=False, steps=STEPS, **watch):
    return cc.ddpg(steps, watch, actor_scale=cc.MAX_ACTION if fixed else 1.0)
