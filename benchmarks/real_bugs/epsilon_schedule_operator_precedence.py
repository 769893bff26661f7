"""The epsilon-greedy schedule's formula is missing its parentheses:
``max(eps_end, eps_start - global_step + 1 / eps_last_frame)`` subtracts the step count
itself, so epsilon sits at ``eps_end`` from the second step on instead of decaying linearly
from ``eps_start`` over ``eps_last_frame`` steps. The agent barely explores: it settles on
the first action that pays anything and never finds out what the others are worth.

Reported: "Bug in epsilon usage in Deep-Q example code" -
https://github.com/Lightning-AI/pytorch-lightning/issues/9620 ("This locks `epsilon` to
`self.eps_end` since this value is always <=1"; the expected behaviour: "Epsilon should
correctly decay over global steps to its end rate"). Here the example's Q-learning update
on a contextual bandit over the 8x8 digits: the state a digit, eleven actions, the ten
classes (1 for the right one, 0 otherwise) and a "pass" that always pays 0.5; 32 states a
step, a replay buffer, eps_start 1, eps_end 0.02, eps_last_frame 150. Fix: the
linear decay the example meant, ``max(eps_end, eps_start - global_step * (eps_start -
eps_end) / eps_last_frame)``.

Measured (300 steps, greedy reward over 1,000 held-out states): the bug's agent earns
0.70 (it passes on many digits it never tried to name), the fixed twin 0.89.

Why watch misses it: the exploration rate lives in the user's loop (which action is played
is drawn outside any graph); the Q-network's regression onto the rewards it sees is
healthy, only the data it is shown is narrow.
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import classification

TITLE = "Bug in epsilon usage in Deep-Q example code"
LINK = "https://github.com/Lightning-AI/pytorch-lightning/issues/9620"
EXPECTED = ("EXPLORATION_NEVER_DECAYS",)
STEPS = 300
STATES, BATCH, PASS, PASS_REWARD = 32, 128, 10, 0.5
EPS_START, EPS_END, EPS_LAST_FRAME = 1.0, 0.02, 150


def epsilon(global_step, fixed):
    if fixed:
        return max(EPS_END, EPS_START - global_step * (EPS_START - EPS_END) / EPS_LAST_FRAME)
    return max(EPS_END, EPS_START - global_step + 1 / EPS_LAST_FRAME)   # BUG: precedence


def rewards_for(actions, labels):
    return torch.where(actions == PASS, PASS_REWARD, (actions == labels).float())


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x, y = classification()
    train_x, train_y, test_x, test_y = x[:-1000], y[:-1000], x[-1000:], y[-1000:]
    q_net = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 11))
    optimizer = torch.optim.Adam(q_net.parameters(), lr=3e-3)
    seen_x, seen_a, seen_r = [], [], []
    with nd.watch(q_net, optimizer, **watch) as mon:
        for step in range(steps):
            rows = torch.from_numpy(rng.integers(0, len(train_x), STATES))
            states = train_x[rows]
            with torch.no_grad():
                actions = q_net(states).argmax(1)
            explore = torch.from_numpy(rng.random(STATES) < epsilon(step, fixed))
            actions = torch.where(explore, torch.from_numpy(rng.integers(0, 11, STATES)), actions)
            seen_x.append(states)
            seen_a.append(actions)
            seen_r.append(rewards_for(actions, train_y[rows]))
            pool_x, pool_a, pool_r = torch.cat(seen_x), torch.cat(seen_a), torch.cat(seen_r)
            pick = torch.from_numpy(rng.integers(0, len(pool_a), BATCH))
            chosen = q_net(pool_x[pick]).gather(1, pool_a[pick].unsqueeze(1)).squeeze(1)
            loss = nn.functional.mse_loss(chosen, pool_r[pick])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        mon.greedy_reward = rewards_for(q_net(test_x).argmax(1), test_y).mean().item()
    return mon
