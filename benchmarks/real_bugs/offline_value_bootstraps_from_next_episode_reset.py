"""Offline TD evaluation whose time-limit transitions store, as their next state, the first
observation of the NEXT episode: the logger reads the observation the environment returns
after it auto-resets. The time limit itself is handled right (the step is not terminal,
so the target bootstraps), but from the wrong state: a fresh reset far from where the
episode had got to. One target in eight values the wrong state; the network fits them as
well as it can and the loss shows only a slightly higher floor.

Reported: "Fix bootstrapping on episode timeout" -
https://github.com/Unity-Technologies/ml-agents/pull/574 (value bootstrapping upon the
episode's timeout "was incorrectly using observation from *new* episode, rather than final
observation from current episode"; the fix keeps the current episode's final observation
for the bootstrap, which improved learning where the episode end is an arbitrary timeout).
Here the offline task of benchmarks/real_bugs/_orl191.py: a 4-dimensional linear task that
never ends, logged in 200 episodes cut after 8 steps (resets start around a fixed point
far from where the dynamics settle), a reward of 1 + w.s, gamma 0.9, TD(0) with a target
copy synced every 50 steps (Adam 1e-3, batches of 128); time-outs are not terminal in both
runs. Bug: the time-limit rows bootstrap from the next episode's reset observation. Fix:
from the episode's own final observation.

Measured (RMSE of the learned value against the closed-form value on 50 held-out
episodes; values lie around 10): seed 0: 8.5 with the bug against 0.75 fixed; seeds
shifted by 1000: 11.0 against 0.91.
"""
import nndebug as nd
from benchmarks.real_bugs._orl191 import fitted_value_run

TITLE = "Fix bootstrapping on episode timeout"
LINK = "https://github.com/Unity-Technologies/ml-agents/pull/574"
EXPECTED = ("BOOTSTRAP_FROM_NEXT_EPISODE_RESET",)
STEPS = 1500


def done_of(data, idx):
    return data["terminal"][idx]


def run(fixed=False, steps=STEPS, **watch):
    # fixed: the episode's own final observation; BUG: the next episode's reset observation
    return fitted_value_run(nd, "next_state" if fixed else "reset_next", done_of, steps, watch)
