"""The replay buffer stores each collection round as a reference to the SAME lists, which
the agent clears and refills for the next round: every entry of the buffer is the round
now being collected. The agent believes it replays thousands of past transitions; it
replays only the latest few hundred, all from its current policy, and forgets what its
earlier exploration taught it.

Silent: the sampled batches have the right shapes and content (real transitions), the
buffer's length grows as expected, and nothing in the loss or gradients tells duplicated
data from diverse data.

Reported: "Replay buffer is storing multiple copies of the most recent episode" -
https://github.com/Itomigna2/Muesli-lunarlander/issues/1 (each episode's state, action,
policy and reward lists were appended to the replay buffers and later emptied with
``list.clear()`` and refilled, so every buffer entry referenced the same lists: the most
recent episode, many times over; the fix: make new lists for each episode instead of
clearing the old ones).

Here: the shared digit-chain DQN (``_value_rl``: name the 8x8 digit for 0.5 and carry on,
or cash out for 1 and stop; 32 environments, a 128-row batch per step, target synced
every 25 steps) whose replay keeps rounds of 10 environment steps (320 transitions) as
lists. The bug clears the round's lists and reuses them; fix: a fresh set of lists for
each round.

**Measured** (300 steps, mean greedy return on 256 held-out chains, 1.0 = cash out at
once): seed 0: 1.18 for the bug against 3.03 for the fixed twin; seeds shifted by 1000:
1.39 against 3.38.
"""
import torch

from benchmarks.real_bugs import _value_rl as rl

TITLE = "Replay buffer is storing multiple copies of the most recent episode"
LINK = "https://github.com/Itomigna2/Muesli-lunarlander/issues/1"
EXPECTED = ("REPLAY_ENTRIES_ALIASED",)
STEPS = 300
ROUND = 10


class RoundReplay:
    """Rounds of ROUND environment steps, each a dict of lists."""

    def __init__(self, fixed):
        self.fixed, self.rounds, self.filled = fixed, [], ROUND
        self.lists = {key: [] for key in rl.KEYS}

    def add(self, transition):
        if self.filled == ROUND:                # a new round begins
            if self.fixed:
                self.lists = {key: [] for key in rl.KEYS}
            else:
                for column in self.lists.values():
                    column.clear()              # BUG: the stored rounds are these lists
            self.rounds.append(self.lists)
            self.filled = 0
        for key in rl.KEYS:
            self.lists[key].append(transition[key])
        self.filled += 1

    def sample(self, rng, size):
        pool = {key: torch.cat([part for stored in self.rounds for part in stored[key]])
                for key in rl.KEYS}
        pick = torch.from_numpy(rng.integers(0, len(pool["a"]), size))
        return {key: value[pick] for key, value in pool.items()}


def run(fixed=False, steps=STEPS, **watch):
    return rl.train(steps, watch, replay=RoundReplay(fixed))
