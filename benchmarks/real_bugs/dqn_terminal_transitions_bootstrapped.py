"""The DQN's TD target bootstraps from the next state on every transition, terminal ones
included: ``target = reward + gamma * max_a Q_target(next_state, a)`` with no ``(1 - done)``.
An action that ends the episode is valued as if the game went on after it, so an exit that
pays a little at once is worth ``reward / (1 - gamma)`` and beats the longer road to the
real prize.

Reported: "Fix dueling_ddqn loss function by adding done_mask" -
https://github.com/cyoon1729/deep-Q-networks/pull/6 (the companion PR #5, "Fix perdqn's loss
by adding done_mask"; the loss built ``expected_Q = rewards + self.gamma * max_next_Q``
without the episode's end). Here a corridor of six cells: from any cell the agent may quit
(reward 0.3, the episode ends where it stands) or step right (reward 0; reaching the last
cell pays 1 and ends the episode). With gamma 0.9 walking the corridor is worth 0.59 from
the start, quitting 0.3; the bug values quitting at 3. The agent sees its cell through
noisy sensors (a one-hot cell plus Gaussian noise). A Q-network, a replay buffer, a
target network synced every 25 steps, epsilon-greedy exploration. Fix:
``target = reward + gamma * (1 - done) * max_next_q``.

Why watch misses it: the TD target is computed under ``no_grad`` from the target network;
with or without ``(1 - done)`` it enters the MSE loss as a constant tensor, and nothing
recorded says which rows ended an episode. The inflated Q-values (about 3, where no
episode pays more than 1) are the regression's own targets: the loss falls, the gradients
and updates look like the fixed twin's.
"""
import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd

TITLE = "Fix dueling_ddqn loss function by adding done_mask"
LINK = "https://github.com/cyoon1729/deep-Q-networks/pull/6"
EXPECTED = ("TERMINAL_STATES_BOOTSTRAPPED",)
STEPS = 400
CELLS, QUIT, RIGHT = 6, 0, 1
QUIT_REWARD, GOAL_REWARD, GAMMA = 0.3, 1.0, 0.9
SYNC_EVERY, BATCH, EPSILON = 25, 64, 0.3
SENSOR_NOISE = 0.1


def observe(cell, rng):
    """What the agent sees of a cell: its one-hot code through noisy sensors."""
    return np.eye(CELLS, dtype=np.float32)[cell] + \
        SENSOR_NOISE * rng.standard_normal(CELLS).astype(np.float32)


def step_corridor(cell, action):
    """(next cell, reward, done): quitting ends the episode in place."""
    if action == QUIT:
        return cell, QUIT_REWARD, True
    if cell + 1 == CELLS - 1:
        return cell + 1, GOAL_REWARD, True
    return cell + 1, 0.0, False


def greedy_return(q_net, rng):
    """The undiscounted return of the greedy policy from the first cell."""
    cell, total = 0, 0.0
    for _ in range(CELLS):
        with torch.no_grad():
            action = int(q_net(torch.from_numpy(observe(cell, rng))).argmax())
        cell, reward, done = step_corridor(cell, action)
        total += reward
        if done:
            break
    return total


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    q_net = nn.Sequential(nn.Linear(CELLS, 32), nn.ReLU(), nn.Linear(32, 2))
    target_net = nn.Sequential(nn.Linear(CELLS, 32), nn.ReLU(), nn.Linear(32, 2))
    target_net.load_state_dict(q_net.state_dict())
    optimizer = torch.optim.Adam(q_net.parameters(), lr=1e-2)
    buffer, cell = [], 0
    with nd.watch(q_net, optimizer, **watch) as mon:
        for t in range(steps):
            for _ in range(4):                              # act: four moves per update
                if rng.random() < EPSILON:
                    action = int(rng.integers(2))
                else:
                    with torch.no_grad():
                        action = int(q_net(torch.from_numpy(observe(cell, rng))).argmax())
                nxt, reward, done = step_corridor(cell, action)
                buffer.append((observe(cell, rng), action, reward, observe(nxt, rng), float(done)))
                cell = 0 if done else nxt
            pick = rng.integers(len(buffer), size=BATCH)
            s, a, r, s2, d = (torch.tensor(np.array(column)) for column in
                              zip(*[buffer[i] for i in pick]))
            q = q_net(s).gather(1, a.unsqueeze(1)).squeeze(1)
            with torch.no_grad():
                max_next_q = target_net(s2).max(1).values
            # BUG: no (1 - done): terminal transitions bootstrap from the cell they ended in
            mask = (1 - d) if fixed else 1.0
            target = r.float() + GAMMA * mask * max_next_q
            loss = F.mse_loss(q, target)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
            if (t + 1) % SYNC_EVERY == 0:
                target_net.load_state_dict(q_net.state_dict())
    mon.final_reward = greedy_return(q_net, rng)
    return mon
