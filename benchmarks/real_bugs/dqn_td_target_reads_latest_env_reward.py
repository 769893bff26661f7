"""The DQN's TD goal adds the reward of the environment's LATEST step, not the reward
stored with each replayed transition: ``goal = reward + gamma * max_a Q_target(s', a)``
where ``reward`` is the loop variable ``env.step`` last assigned, so every row of the
replayed batch gets the same reward, whatever action it took. The goal no longer says which
action paid; the Q-network learns only the bootstrap, and its greedy policy is arbitrary.

Silent: the goal is a constant tensor computed under no_grad, of the right shape and
range (the latest reward is one of the rewards the task pays), and the regression onto it
converges like any other.

Reported: "In dqn-cartpole-9.6.1.py, line 115, where does "reward" variable come from?" -
https://github.com/PacktPublishing/Advanced-Deep-Learning-with-Keras/issues/5 (the DQN
agent's ``get_target_q_value(next_state)`` added ``reward`` without taking it as an
argument: it read the module-level reward of the last environment step, not the replayed
transition's; the author: "The reward is from experience replay. This is a bug. It is now
fixed" - the reward is passed in with each replayed transition).

Here: the shared digit-chain DQN (``_value_rl``: name the 8x8 digit for 0.5 and carry on,
or cash out for 1 and stop; 32 environments, a replay of every transition, a 128-row batch
per step, target synced every 25 steps). The bug fills every row's reward with the reward
the last environment received on the latest step. Fix: each row's own stored reward.

**Measured** (300 steps, mean greedy return on 256 held-out chains, 1.0 = cash out at
once): seed 0: 1.17 for the bug against 3.03 for the fixed twin; seeds shifted by 1000:
2.61 against 3.38.
"""
import torch

from benchmarks.real_bugs import _value_rl as rl

TITLE = 'In dqn-cartpole-9.6.1.py, line 115, where does "reward" variable come from?'
LINK = "https://github.com/PacktPublishing/Advanced-Deep-Learning-with-Keras/issues/5"
EXPECTED = ("TD_TARGET_IGNORES_REPLAYED_REWARD",)
STEPS = 300


def latest_reward_goal(online, target, batch, latest):
    with torch.no_grad():
        ahead = target(batch["s2"]).max(1).values
        reward = latest["r"][-1]        # BUG: the last env step's reward, for every row
        return reward + rl.GAMMA * ahead * (~batch["end"]).float()


def run(fixed=False, steps=STEPS, **watch):
    goal = rl.max_goal if fixed else latest_reward_goal
    return rl.train(steps, watch, goal=goal)
