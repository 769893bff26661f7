"""A small value-based RL set-up the batch-136 cases share: a DQN on a chain of 8x8 digits.

``DigitChain``: ENVS episodes stepped together. Each state is a digit image; the eleven
actions are "name the digit" (0-9) and "cash out" (10). Naming the digit right pays
NAME_REWARD and shows a fresh random digit; naming it wrong ends the episode with nothing;
cashing out pays CASH_REWARD and ends it; episodes are cut at HORIZON steps. An agent that
looks ahead values naming at about 0.5 / (1 - 0.9 * accuracy), several times the cash-out;
an agent that does not (or whose bootstrap is noise) cashes out at once and returns 1.

``train`` runs the DQN each case edits: epsilon-greedy acting, a replay of every
transition, one update of a BATCH-transition sample per environment step, a target network
synced every SYNC_EVERY steps. A case passes its own pieces (how the replay stores and
samples, how the TD goal is built, the loss) and ``train`` returns the closed monitor with
``greedy_return`` (mean return of the greedy policy over 256 held-out episodes) and
``cash_out_rate`` (how often the greedy policy cashes out on the first digit) set.
"""
import copy

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import classification

ENVS, BATCH, GAMMA, HORIZON, SYNC_EVERY = 32, 128, 0.9, 20, 25
ACTIONS, CASH_OUT = 11, 10
NAME_REWARD, CASH_REWARD = 0.5, 1.0
LR = 3e-3
KEYS = ("s", "a", "r", "s2", "end")


class DigitChain:
    """ENVS episodes stepped together; ``step`` returns (rewards, ended)."""

    def __init__(self, x, y, rng):
        self.x, self.y, self.rng = x, y, rng
        self.rows = torch.from_numpy(rng.integers(0, len(x), ENVS))
        self.clock = np.zeros(ENVS, dtype=np.int64)

    def states(self):
        return self.x[self.rows]

    def step(self, actions):
        right = actions == self.y[self.rows]
        cash = actions == CASH_OUT
        rewards = torch.where(cash, CASH_REWARD, torch.where(right, NAME_REWARD, 0.0))
        ended = cash | ~right
        self.clock += 1
        over = ended.numpy() | (self.clock >= HORIZON)
        self.clock[over] = 0
        self.rows = torch.from_numpy(self.rng.integers(0, len(self.x), ENVS))
        return rewards, ended


def q_network():
    return nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, ACTIONS))


class Replay:
    """Every transition kept; ``sample`` draws rows uniformly (with replacement)."""

    def __init__(self):
        self.parts = {key: [] for key in KEYS}

    def add(self, transition):
        for key in KEYS:
            self.parts[key].append(transition[key])

    def sample(self, rng, size):
        pool = {key: torch.cat(value) for key, value in self.parts.items()}
        pick = torch.from_numpy(rng.integers(0, len(pool["a"]), size))
        return {key: value[pick] for key, value in pool.items()}


def max_goal(online, target, batch, latest):
    """The DQN goal: r + gamma * (1 - end) * max_a Q_target(s', a)."""
    with torch.no_grad():
        ahead = target(batch["s2"]).max(1).values
        return batch["r"] + GAMMA * ahead * (~batch["end"]).float()


def chosen_loss(online, batch, goal):
    """Huber loss of Q(s, a) for the actions taken against the goal."""
    chosen = online(batch["s"]).gather(1, batch["a"].unsqueeze(1)).squeeze(1)
    return F.smooth_l1_loss(chosen, goal)


def greedy_return(model, x, y, episodes=256, seed=1):
    """(mean return, first-step cash-out rate) of the greedy policy on held-out chains."""
    rng = np.random.default_rng(seed)
    rows = torch.from_numpy(rng.integers(0, len(x), (episodes, HORIZON)))
    total, alive = torch.zeros(episodes), torch.ones(episodes, dtype=torch.bool)
    with torch.no_grad():
        first = model(x[rows[:, 0]]).argmax(1)
        for t in range(HORIZON):
            actions = model(x[rows[:, t]]).argmax(1)
            right = actions == y[rows[:, t]]
            cash = actions == CASH_OUT
            total += alive * torch.where(cash, CASH_REWARD, torch.where(right, NAME_REWARD, 0.0))
            alive &= right & ~cash
    return total.mean().item(), (first == CASH_OUT).float().mean().item()


def train(steps, watch, replay=None, goal=max_goal, loss=chosen_loss, seed=0, lr=LR):
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    x, y = classification()
    held = torch.from_numpy(np.random.default_rng(seed + 7).permutation(len(x)))
    test, train_rows = held[:500], held[500:]
    online = q_network()
    target = copy.deepcopy(online)
    optimizer = torch.optim.Adam(online.parameters(), lr=lr)
    env = DigitChain(x[train_rows], y[train_rows], rng)
    replay = Replay() if replay is None else replay
    with nd.watch(online, optimizer, **watch) as mon:
        for step in range(steps):
            states = env.states()
            epsilon = max(0.05, 1.0 - step / (0.5 * steps))
            with torch.no_grad():
                actions = online(states).argmax(1)
            explore = torch.from_numpy(rng.random(ENVS) < epsilon)
            actions = torch.where(explore, torch.from_numpy(rng.integers(0, ACTIONS, ENVS)),
                                  actions)
            rewards, ended = env.step(actions)
            latest = dict(zip(KEYS, (states, actions, rewards, env.states(), ended)))
            replay.add(latest)
            batch = replay.sample(rng, BATCH)
            value = loss(online, batch, goal(online, target, batch, latest))
            optimizer.zero_grad()
            value.backward()
            optimizer.step()
            mon.step(value)
            if (step + 1) % SYNC_EVERY == 0:
                target.load_state_dict(online.state_dict())
    mon.greedy_return, mon.cash_out_rate = greedy_return(online, x[test], y[test])
    return mon
