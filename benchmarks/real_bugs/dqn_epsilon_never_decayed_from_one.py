"""The DQN's exploration rate is set to 1 and never changed: ``self.epsilon = 1`` in the
agent's constructor and nowhere else, so every action the agent takes while it learns is
drawn at random. Q-learning is off-policy, so the network still regresses onto TD goals,
but it only ever sees what a random policy reaches: here a random agent names the digit
right one time in eleven, so the replay holds almost nothing but first steps and instant
endings, and the value of carrying on along a chain is learned from very few rows.

Reported: "Epsilon is never changed" -
https://github.com/conditionWang/DRQN_Stock_Trading/issues/3 ("I searched for epsilon,
because I was curious at which place you change it but I could only find self.epsilon = 1,
which means in your code the results will stay completely random").

Here: the shared digit-chain DQN (``_beginner_dqn`` on ``_value_rl``'s chain: name the 8x8
digit for 0.5 and carry on, or cash out for 1 and stop; 32 environments, a replay of every
transition, a 128-row batch per step, target synced every 25 updates). The bug keeps
epsilon at 1 for the whole run. Fix: anneal it from 1 to 0.05 over the first half.

**Measured** (300 steps, mean greedy return on 256 held-out chains, 1.0 = cash out at
once): seed 0: 2.41 for the bug against 3.03 for the fixed twin; seeds shifted by 1000:
2.27 against 3.38.
"""
from benchmarks.real_bugs import _beginner_dqn as dqn

TITLE = "Epsilon is never changed"
LINK = "https://github.com/conditionWang/DRQN_Stock_Trading/issues/3"
EXPECTED = ("EXPLORATION_NEVER_DECAYS",)
STEPS = 300


def never_changed(step, steps, epsilon):
    return 1.0                      # BUG: self.epsilon = 1, never decayed


def run(fixed=False, steps=STEPS, **watch):
    return dqn.train(steps, watch, epsilon=dqn.linear_epsilon if fixed else never_changed)
