"""The Double-DQN recipe multiplies every reward by 0.01 before storing it in the replay -
a heuristic left over from another environment. The TD goals the Q-network regresses onto
shrink a hundredfold (a chain worth 0.5 a step becomes 0.005 a step) while the network's own
output noise, its initial scale and Adam's step size stay what they were: the differences
between actions that the greedy policy reads are now smaller than the error the regression
leaves, and the argmax is mostly noise.

Reported: "Why reward is scaled by 0.01?" -
https://github.com/PacktPublishing/Tensorflow-2-Reinforcement-Learning-Cookbook/issues/31
(Chapter03/1_double_dqn.py stored ``reward * 0.01`` while accumulating the episode reward
at its original scale; the author: "There's no particular reason for this reward scaling.
It was just a heuristic for a particular RL environment which I must have forgotten to
remove ... I'll remove the * 0.01").

Here: the shared digit-chain DQN (``_beginner_dqn`` on ``_value_rl``'s chain: name the 8x8
digit for 0.5 and carry on, or cash out for 1 and stop; 32 environments, a replay of every
transition, a 128-row Huber-loss batch per step, Adam at 3e-3, target synced every 25
updates). The bug stores ``reward * 0.01``. Fix: store the reward as the environment paid it.

**Measured** (300 steps, mean greedy return on 256 held-out chains, at the environment's own
reward scale; 1.0 = cash out at once): seed 0: 1.19 for the bug against 3.03 for the fixed
twin; seeds shifted by 1000: 0.67 against 3.38.
"""
from benchmarks.real_bugs import _beginner_dqn as dqn

TITLE = "Why reward is scaled by 0.01?"
LINK = "https://github.com/PacktPublishing/Tensorflow-2-Reinforcement-Learning-Cookbook/issues/31"
EXPECTED = ("TARGETS_UNSCALED",)
STEPS = 300
LEFTOVER_SCALE = 0.01


def run(fixed=False, steps=STEPS, **watch):
    # BUG: rewards stored as reward * 0.01 (a leftover heuristic)
    return dqn.train(steps, watch, reward_scale=1.0 if fixed else LEFTOVER_SCALE)
