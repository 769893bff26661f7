"""The DDPG critic's TD target leaves out the done mask: ``y = r + gamma * Q'(s', mu'(s'))``
where DDPG writes ``y = r + gamma * (1 - done) * Q'(s', mu'(s'))``. A transition that ends the
episode is bootstrapped from the state after the end as if the episode went on, so falling
out of the task costs nothing: on a task that pays 1 for every step alive, every action is
worth about 1 / (1 - gamma) and the actor has nothing to climb.

Silent: the TD loss falls and stays small, the critic's values settle near 10 (1 / (1 -
gamma)), nothing is NaN, and the policy's actions look like any others.

Reported: "Missing done mask?" - https://github.com/seungeunrho/minimalRL/issues/32 (the
minimal DDPG's ``train`` computed its critic target without multiplying by the done mask the
replay buffer returned: "critic target에서 done mask를 곱해주는것을 빼먹으신거 아닌가요?" - "didn't
you forget to multiply by the done mask in the critic target?"; an earlier pull request,
seungeunrho/minimalRL#21 "ddpg minor bug", said the same, and the author fixed it). The
report's Pendulum never terminates (its episodes end on a time limit), so here the task has
real terminal states, where the mask matters.

Here: hand-written DDPG on the batch's balancing task (``_ac303``: keep an unstable point in
the box |s| <= 1 with a push in [-1, 1]^2, 1 per step alive, leaving the box ends the
episode; 128 fresh exploratory transitions per step, gamma 0.9, tau 0.02). The bug's target
is ``r + gamma * Q'(s', mu'(s'))``; fix: ``r + gamma * (1 - done) * Q'(s', mu'(s'))``.

Measured (500 steps, mean steps survived by the deterministic policy over 256 held-out
episodes of at most 60 steps; doing nothing survives about 5.5): seed 0: 5.5 for the bug
against 60.0 for the fixed twin; seeds shifted by 1000: 5.7 against 60.0.
"""
from benchmarks.real_bugs import _ac303 as ac

TITLE = "Missing done mask?"
LINK = "https://github.com/seungeunrho/minimalRL/issues/32"
EXPECTED = ("TERMINAL_STATES_BOOTSTRAPPED",)
STEPS = 500


def run(fixed=False, steps=STEPS, **watch):
    def td_target(r, done, s2, target_actor, target_critic):
        mask = (1 - done) if fixed else 1.0      # BUG: the done mask left out
        return r + ac.GAMMA * mask * target_critic(s2, target_actor(s2))

    return ac.ddpg(steps, watch, td_target=td_target)
