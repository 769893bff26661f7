"""A recurrent Q-learner (a GRU unrolled over stored streams of play, its state zeroed where an
episode starts) that resets the state with the WRONG done flag: each stored step holds the
observation the agent acted on and the done flag that the step RETURNED (did this step end the
episode?), and the unroll zeroes the state wherever that flag is set. So the state is wiped
one step early - just before the last observation of every episode is read - and the next
episode's first step is read on top of a state that was never reset for it. In a task where
the last step is where memory pays off, the Q-values of that step are learned from the last
observation alone. Nothing errors and the TD loss falls; the greedy agent plays no better
than a coin where memory is needed.

Reported: "Understanding some RNN logic for QMIX SMAX algorithm" -
https://github.com/bold-lab-ai/JaxMARL/issues/119 (labelled bug; the ScannedRNN resets the
hidden state wherever the step's done is true before reading that step's observation, "However
I noticed that when data is actually collected, any given timestep actually consists of the
last obs + new done, instead of last obs + last done"; fixed by PR 127, "Fixed RNN variants of
IQL/QMix/VDN using wrong done for resetting hidden state"). Here a T-maze
(benchmarks/real_bugs/_tmaze354.py: a cue on the first step, a corridor of 1-6 identical
steps, a left/right turn at the junction paid 1 if it matches the cue), 64 streams of 16
steps of random play per update (episodes restart in place), a GRU(3 -> 32) Q-network with a
linear head, one-step Q-learning (gamma 0.9, smooth L1), Adam 3e-3. Fix: the reset flag of a
step is the done of the step BEFORE it (the episode's first step), as in the PR.

No finding code names a recurrent state reset one step early at episode ends; the nearest,
STATE_RESET_BETWEEN_CONTIGUOUS_WINDOWS, names a recurrent state started again from nothing
where it should have been handed on.

Measured (held-out: the greedy agent's share of correct turns over 500 unseen mazes played
from a fresh state, after 120 updates): 0.49 with the bug, 1.00 fixed; seeds + 1000: 0.53 vs
1.00.
"""
import numpy as np
import torch

import nndebug as nd
from benchmarks.real_bugs._tmaze354 import RecurrentQ, held_out_success, streams, td_loss

TITLE = "Understanding some RNN logic for QMIX SMAX algorithm"
LINK = "https://github.com/bold-lab-ai/JaxMARL/issues/119"
EXPECTED = ("STATE_RESET_BETWEEN_CONTIGUOUS_WINDOWS",)
STEPS = 120
LANES, LENGTH = 64, 16


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    model = RecurrentQ()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            obs, actions, rewards, dones, first = streams(rng, LANES, LENGTH)
            if fixed:
                resets = first         # reset where the step STARTS an episode
            else:
                resets = dones         # BUG: reset by the done this step returned
            q, _ = model(obs, resets)
            loss = td_loss(q, actions, rewards, dones)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_success = held_out_success(model, 0)
    return mon
