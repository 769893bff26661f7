"""A T-maze that needs memory, played by a recurrent Q-network (real-bug batch 354).

Each episode shows a cue (+1 or -1) on its first step, then a corridor of 1 to 6 steps that
all look alike, then the junction, where the agent turns left or right: reward 1 for the turn
the cue named, 0 for the other, and the episode ends. Only a network that carries the cue in
its recurrent state can do better than a coin. Several copies of the maze run side by side as
streams: a finished episode restarts in place (auto-reset), so a stream of ``T`` steps holds
several episodes back to back, each step stored as (obs, action, reward, done) with ``done``
true on the step that ENDED its episode (the junction).
"""
import numpy as np
import torch
from torch import nn

OBS, ACTIONS, HIDDEN = 3, 2, 32
MIN_CORRIDOR, MAX_CORRIDOR = 1, 6
GAMMA = 0.9


def episode(rng):
    """One episode's observations (length k + 2, OBS) and its cue (0: left, 1: right)."""
    cue = int(rng.integers(2))
    corridor = int(rng.integers(MIN_CORRIDOR, MAX_CORRIDOR + 1))
    obs = np.zeros((corridor + 2, OBS), dtype=np.float32)
    obs[0, 0] = 1.0 if cue else -1.0         # the cue, first step only
    obs[1:-1, 1] = 1.0                        # the corridor
    obs[-1, 2] = 1.0                          # the junction
    return obs, cue


def streams(rng, lanes, length):
    """``lanes`` streams of ``length`` steps played by a uniformly random behaviour policy,
    every stream starting on a fresh episode: obs (T, B, OBS), actions, rewards, dones
    (T, B), and ``first`` (T, B): the step starts an episode (done of the step before)."""
    count = length // (MIN_CORRIDOR + 2) + 1
    lengths = rng.integers(MIN_CORRIDOR, MAX_CORRIDOR + 1, size=(lanes, count)) + 2
    cues = rng.integers(2, size=(lanes, count))
    actions = rng.integers(ACTIONS, size=(length, lanes))
    obs = np.zeros((length, lanes, OBS), dtype=np.float32)
    rewards = np.zeros((length, lanes), dtype=np.float32)
    dones = np.zeros((length, lanes), dtype=bool)
    for lane in range(lanes):
        ep = np.repeat(np.arange(count), lengths[lane])[:length]
        starts = np.cumsum(lengths[lane]) - lengths[lane]
        pos = np.arange(length) - starts[ep]
        last = pos == lengths[lane][ep] - 1
        cue = cues[lane][ep]
        obs[pos == 0, lane, 0] = np.where(cue[pos == 0] == 1, 1.0, -1.0)
        obs[(pos > 0) & ~last, lane, 1] = 1.0
        obs[last, lane, 2] = 1.0
        dones[:, lane] = last
        rewards[:, lane] = last & (actions[:, lane] == cue)
    first = np.zeros_like(dones)
    first[0] = True
    first[1:] = dones[:-1]
    return (torch.from_numpy(obs), torch.from_numpy(actions), torch.from_numpy(rewards),
            torch.from_numpy(dones), torch.from_numpy(first))


def play_streams(rng, lanes, length):
    """The observation streams of ``streams`` (which do not depend on the actions), with the
    cue of each step's episode (T, B) and ``complete`` (T, B): the step's episode reaches its
    junction inside the stream. Returns obs, dones, first, cues, complete."""
    obs, _, _, dones, first = streams(rng, lanes, length)
    steps = torch.arange(length)[:, None].expand(length, lanes)
    started = (steps * first).cummax(0).values           # the first step of each step's episode
    cues = (obs[..., 0].gather(0, started) > 0).long()
    complete = torch.flip(torch.cummax(torch.flip(dones.long(), [0]), 0).values, [0]).bool()
    return obs, dones, first, cues, complete


class RecurrentQ(nn.Module):
    """A GRU cell over the observations and a linear head with one output per action (Q-values
    for the Q-learner, action logits for the policy)."""

    def __init__(self):
        super().__init__()
        self.cell = nn.GRUCell(OBS, HIDDEN)
        self.head = nn.Linear(HIDDEN, ACTIONS)

    def forward(self, obs, resets, hidden=None):
        """obs (T, B, OBS), resets (T, B) bool: the state is zeroed BEFORE step t reads its
        observation wherever resets[t]. Returns Q (T, B, ACTIONS) and the last state."""
        if hidden is None:
            hidden = obs.new_zeros(obs.shape[1], HIDDEN)
        keep = (~resets).float()[..., None]
        states = []
        for t in range(obs.shape[0]):
            hidden = self.cell(obs[t], hidden * keep[t])
            states.append(hidden)
        return self.head(torch.stack(states)), hidden


def td_loss(q, actions, rewards, dones):
    """One-step Q-learning over a stream: Q(h_t, a_t) towards r_t + gamma max_a Q(h_t+1, a)
    (no bootstrap on the step that ended its episode; the stream's last step, whose next
    state is not in the batch, only where it ended an episode)."""
    q_taken = q.gather(2, actions[..., None])[..., 0]
    next_max = torch.cat([q[1:].max(2).values, torch.zeros_like(q[:1, :, 0])]).detach()
    target = rewards + GAMMA * (~dones).float() * next_max
    usable = torch.ones_like(dones)
    usable[-1] = dones[-1]
    return nn.functional.smooth_l1_loss(q_taken[usable], target[usable])


@torch.no_grad()
def held_out_success(model, seed, episodes=500):
    """The greedy policy's share of correct turns over ``episodes`` unseen mazes, each played
    from a fresh (zero) recurrent state (all mazes side by side, each read at its junction)."""
    rng = np.random.default_rng(seed + 12345)
    mazes = [episode(rng) for _ in range(episodes)]
    longest = max(len(obs) for obs, _ in mazes)
    obs = torch.zeros(longest, episodes, OBS)
    for i, (o, _) in enumerate(mazes):
        obs[:len(o), i] = torch.from_numpy(o)
    junction = torch.tensor([len(o) - 1 for o, _ in mazes])
    cues = torch.tensor([c for _, c in mazes])
    q, _ = model(obs, torch.zeros(longest, episodes, dtype=torch.bool))
    turns = q[junction, torch.arange(episodes)].argmax(1)
    return (turns == cues).float().mean().item()
