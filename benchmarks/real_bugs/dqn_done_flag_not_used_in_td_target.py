"""The DQN's Q-value target never reads the ``done`` flag it stored: ``target = reward +
gamma * max_a Q_target(next_state, a)`` on every replayed row, so a transition that ended
the episode is valued as if play went on from the state after it. Cashing out (1 at once,
the end of the episode) then looks worth 1 + 0.9 * V(next digit) - more than naming a digit
for 0.5 and carrying on, whatever the chain is worth - and the greedy agent cashes out on
the first step, every time.

Reported: "'Done' not used in calculating Q-value targets" -
https://github.com/navneet-nmk/pytorch-rl/issues/2 ("Why is done not being used in
calculating the target Q-values in train_dqn.py? Shouldn't it be used as a mask to make sure
the qvalue of this state is set to just R, not R + gamma*Q(s')").

Here: the shared digit-chain DQN (``_beginner_dqn`` on ``_value_rl``'s chain: name the 8x8
digit for 0.5 and carry on, or cash out for 1 and stop; naming wrong stops with nothing;
32 environments, a replay of every transition with its ``done`` flag, a 128-row batch per
step, target synced every 25 updates). Fix: ``reward + gamma * (1 - done) * max_next_q``.

**Measured** (300 steps, mean greedy return on 256 held-out chains, 1.0 = cash out at
once): seed 0: 1.00 for the bug (it cashes out on all 256 chains) against 3.03 for the
fixed twin; seeds shifted by 1000: 1.00 against 3.38.
"""
import torch

from benchmarks.real_bugs import _beginner_dqn as dqn
from benchmarks.real_bugs import _value_rl as rl

TITLE = "'Done' not used in calculating Q-value targets"
LINK = "https://github.com/navneet-nmk/pytorch-rl/issues/2"
EXPECTED = ("TERMINAL_STATES_BOOTSTRAPPED",)
STEPS = 300


def done_ignored(target, batch):
    with torch.no_grad():
        # BUG: the stored done flag (batch["end"]) is never read
        return batch["r"] + rl.GAMMA * target(batch["s2"]).max(1).values


def run(fixed=False, steps=STEPS, **watch):
    return dqn.train(steps, watch, goal=dqn.masked_goal if fixed else done_ignored)
