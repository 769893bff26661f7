"""The DQN's periodic target-network update copies the target network into ITSELF,
``target.load_state_dict(target.state_dict())``, instead of copying the online network in.
The target network keeps its random initial weights for the whole run, so every bootstrap
``r + gamma * max Q_target(s', a')`` reads noise: values never propagate beyond one step,
and the agent learns only what pays at once.

Reported: "目标网络更新bug" ("target network update bug") -
https://github.com/thesouther/MARL/issues/8 (QMIX's policy.py updates its target with
``self.target_qmix_net.load_state_dict(self.target_qmix_net.state_dict())``; the reporter:
the argument should be ``eval_qmix_net``; the author: "yes, updated"). Here a DQN on a
chain of 8x8 digits: naming the digit pays 0.5 and shows the next digit, a wrong name ends
the episode, and an eleventh action, "cash out", pays 1 and ends it (episodes are cut at 20
steps). Naming digits is worth about 4 for an agent that looks ahead, cashing out 1; an
agent whose bootstrap reads noise sees naming as worth ~0.5 + noise and cashes out at once.
32 environments step together, a replay buffer, one update of a 128-transition batch per
step, epsilon decaying from 1 to 0.05, the target synced every 25 steps. Fix:
``target.load_state_dict(online.state_dict())``.

Measured (300 steps, greedy return over 256 test episodes): the bug's agent returns 1.0
(it cashes out on the first digit), the fixed twin 4.8.

Why watch misses it: the target network is another module, which watch never sees; its
outputs reach the loss as a constant target computed under no_grad. A target that never
moves reads like a task whose values are bounded by one step's reward: the bug's TD targets
stay within [0, 1], as a healthy agent's on a one-step task would. (The fixed twin's TD
loss rises 3-fold as its targets spread out 2.5-fold with the values it learns: no
divergence, see ``nndebug/rules/moving_targets.py``.)
"""
import copy

import numpy as np
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import classification
from benchmarks.real_bugs._value_rl import (BATCH, ENVS, GAMMA, LR, SYNC_EVERY, DigitChain,
                                            greedy_return, q_network)

TITLE = "目标网络更新bug (target network update bug)"
LINK = "https://github.com/thesouther/MARL/issues/8"
EXPECTED = ("TARGET_NETWORK_NEVER_SYNCED",)
STEPS = 300


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x, y = classification()
    online = q_network()
    target = copy.deepcopy(online)
    optimizer = torch.optim.Adam(online.parameters(), lr=LR)
    env = DigitChain(x, y, rng)
    buffer = {"s": [], "a": [], "r": [], "s2": [], "end": []}
    with nd.watch(online, optimizer, **watch) as mon:
        for step in range(steps):
            states = env.states()
            epsilon = max(0.05, 1.0 - step / (0.5 * steps))
            with torch.no_grad():
                actions = online(states).argmax(1)
            explore = torch.from_numpy(rng.random(ENVS) < epsilon)
            actions = torch.where(explore, torch.from_numpy(rng.integers(0, 11, ENVS)), actions)
            rewards, ended = env.step(actions)
            for key, value in zip(buffer, (states, actions, rewards, env.states(), ended)):
                buffer[key].append(value)
            pool = {key: torch.cat(value) for key, value in buffer.items()}
            pick = torch.from_numpy(rng.integers(0, len(pool["a"]), BATCH))
            with torch.no_grad():
                ahead = target(pool["s2"][pick]).max(1).values
                goal = pool["r"][pick] + GAMMA * ahead * (~pool["end"][pick]).float()
            chosen = online(pool["s"][pick]).gather(1, pool["a"][pick].unsqueeze(1)).squeeze(1)
            loss = nn.functional.smooth_l1_loss(chosen, goal)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
            if (step + 1) % SYNC_EVERY == 0:
                if fixed:
                    target.load_state_dict(online.state_dict())
                else:
                    target.load_state_dict(target.state_dict())   # BUG: copies itself
    mon.final_return = greedy_return(online, x, y)[0]
    return mon
