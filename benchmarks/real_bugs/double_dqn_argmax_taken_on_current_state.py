"""A Double DQN picks the bootstrap action with the online network on the CURRENT state,
``a* = argmax_a Q_online(s, a)``, and evaluates it on the next state,
``goal = r + gamma * Q_target(s', a*)``. Double DQN selects on the next state: the action
best in ``s`` is in general not a good one in ``s'``, so the bootstrap reads the value of
an arbitrary action and the agent underrates every continuation.

Silent: the goal is computed under no_grad from real networks' outputs, stays in a sane
range (it is a Q-value of the next state, only of the wrong action), and the regression on
it converges.

Reported: "It seems not a standard ddqn implementation." -
https://github.com/YangRui2015/2048_env/issues/1 (``dqn_agent.py`` took the argmax from
the eval network's Q-values of the batch's states, ``q_eval_4_this_state_argmax``; the
reporter: by the Double DQN algorithm the argmax must be of the next state,
``q_eval_4_next_state_argmax``; labelled bug).

Here: the shared digit-chain DQN (``_value_rl``: name the 8x8 digit for 0.5 and carry on,
or cash out for 1 and stop; 32 environments, a replay of every transition, a 128-row batch
per step, target synced every 25 steps) as a Double DQN. In this task the best action of
a state (its digit's name) is almost never the best of the next state (another digit), so
the bug bootstraps from a wrong name's value. Fix: ``argmax_a Q_online(s', a)``.

**Measured** (300 steps, mean greedy return on 256 held-out chains, 1.0 = cash out at
once): seed 0: 1.07 for the bug (the greedy policy cashes out on 86% of first digits)
against 2.93 for the fixed twin; seeds shifted by 1000: 1.04 (cash-out on 91%) against
3.37.
"""
import torch

from benchmarks.real_bugs import _value_rl as rl

TITLE = "It seems not a standard ddqn implementation."
LINK = "https://github.com/YangRui2015/2048_env/issues/1"
EXPECTED = ("DOUBLE_Q_ARGMAX_ON_CURRENT_STATE",)
STEPS = 300


def double_q_goal(fixed):
    def goal(online, target, batch, latest):
        with torch.no_grad():
            # BUG: the action is chosen on the batch's states, not on its next states
            chooser = batch["s2"] if fixed else batch["s"]
            best = online(chooser).argmax(1, keepdim=True)
            ahead = target(batch["s2"]).gather(1, best).squeeze(1)
            return batch["r"] + rl.GAMMA * ahead * (~batch["end"]).float()
    return goal


def run(fixed=False, steps=STEPS, **watch):
    return rl.train(steps, watch, goal=double_q_goal(fixed))
