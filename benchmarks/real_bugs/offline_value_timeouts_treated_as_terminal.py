"""Offline TD evaluation that stops bootstrapping at every time-limit step: the dataset's
``done`` merges the task's real ends with the logger's time limit, and the TD target
``reward + gamma * (1 - done) * V(next_state)`` treats a state the logger merely stopped
recording in as one after which nothing more is earned. One transition in eight (episodes
of 8 steps) is regressed onto its reward alone, so the learned value of every state is
pulled far below what the task pays; the regression converges happily onto these wrong
targets and the loss looks like the fixed run's.

Reported: "Wrong bootstrap in baselines DDPG ?" - https://github.com/openai/baselines/issues/436
(the TimeLimit wrapper returns done=True when an episode reaches its step limit although
the state is not terminal; the target then uses the reward alone for that "false" terminal
state, "leading to incoherent updates"; the fix, after Pardo et al. "Time Limits in
Reinforcement Learning", is to keep bootstrapping on time-outs and stop only on true
terminal states). Here the setting of D4RL-style offline data with separate ``terminals``
and ``timeouts`` columns (benchmarks/real_bugs/_orl191.py): a 4-dimensional linear task that
never ends, logged in 200 episodes cut after 8 steps, a reward of 1 + w.s per step, gamma
0.9; a value network learns the behaviour policy's value by TD(0) with a target copy
synced every 50 steps (Adam 1e-3, batches of 128). Bug: ``done = terminals | timeouts``.
Fix: ``done = terminals``.

Measured (RMSE of the learned value against the closed-form value on 50 held-out
episodes; values lie around 10): seed 0: 5.6 with the bug against 0.75 fixed; seeds
shifted by 1000: 4.1 against 0.91.
"""
import nndebug as nd
from benchmarks.real_bugs._orl191 import fitted_value_run

TITLE = "Wrong bootstrap in baselines DDPG ?"
LINK = "https://github.com/openai/baselines/issues/436"
EXPECTED = ("TIMEOUTS_TREATED_AS_TERMINAL",)
STEPS = 1500


def run(fixed=False, steps=STEPS, **watch):
    if fixed:            # only real ends stop the bootstrap
        def done_of(data, idx):
            return data["terminal"][idx]
    else:                # BUG: the logger's time limit counted as the task's end
        def done_of(data, idx):
            return (data["terminal"][idx] + data["timeout"][idx]).clamp(max=1.0)
    return fitted_value_run(nd, "next_state", done_of, steps, watch)
