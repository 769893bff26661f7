"""A Gaussian policy trained by REINFORCE draws its actions with ``rsample()`` and then
takes ``log_prob`` of those same actions, still attached to the graph. A reparameterised
sample is ``mean + std * noise``, so ``log_prob(action)`` is ``-log std - noise**2 / 2 -
const``: the mean cancels out of it, the policy-gradient loss has no gradient for the mean
head at all, and only the spread is trained (by whatever the advantages say about the
noise). The policy never learns where to act; the loss still moves and nothing errors.

Reported: "`Normal` distribution: Gaussian policy with zero gradient of mean head" -
https://github.com/pytorch/pytorch/issues/10943 (the reporter's Gaussian policy, a mean
head and a log-variance head, got zero gradients on the mean head from ``-log_prob`` of an
``rsample()``; the answers: the action is sampled from the model with ``rsample`` so the
gradient flows through the sample as well; for the score-function (REINFORCE) gradient the
action must be a constant - draw it with ``sample()`` (or detach it)). Here a small
synthetic environment: a point on a line (position in [-1, 1]) must be driven to a target
(both drawn at random, both observed), each step moves it by 0.1 times the clipped action
and pays minus its distance to the target, 20 steps an episode, 32 episodes an update.
The policy: a 2-64-64 trunk with a mean head and a log-variance head (as in the report),
REINFORCE with returns to go (gamma 0.95) less their batch mean, Adam at 3e-3. Fix:
``dist.sample()`` for the action.

Measured (held-out: the mean distance to the target over the last 5 steps of 200 unseen
episodes, acting with the policy's mean; 1.0 is about where a random start leaves it):
300 updates: the bug's policy
ends 0.866 from its target, the fixed twin's 0.031. Seeds shifted by 1000: 0.813 against
0.044. The bug's mean head never moves from its initial weights.
"""
import numpy as np
import torch
from torch import nn
from torch.distributions import Normal

import nndebug as nd

TITLE = "`Normal` distribution: Gaussian policy with zero gradient of mean head"
LINK = "https://github.com/pytorch/pytorch/issues/10943"
EXPECTED = ("POLICY_ACTION_NOT_DETACHED", "NO_GRADIENT")
STEPS = 300
EPISODES, HORIZON, GAMMA, MOVE = 32, 20, 0.95, 0.1


class GaussianPolicy(nn.Module):
    def __init__(self, hidden=64):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(2, hidden), nn.Tanh(),
                                   nn.Linear(hidden, hidden), nn.Tanh())
        self.mean_head = nn.Linear(hidden, 1)
        self.logvar_head = nn.Linear(hidden, 1)

    def forward(self, observations):
        features = self.trunk(observations)
        return Normal(self.mean_head(features)[:, 0],
                      torch.exp(0.5 * self.logvar_head(features)[:, 0]))


def starts(n, rng):
    """(positions, targets) of ``n`` new episodes."""
    return (torch.from_numpy(rng.uniform(-1, 1, n).astype(np.float32)),
            torch.from_numpy(rng.uniform(-1, 1, n).astype(np.float32)))


def move(positions, actions):
    return (positions + MOVE * actions.clamp(-1, 1)).clamp(-1, 1)


def held_out_distance(policy, episodes=200, seed=12345):
    positions, targets = starts(episodes, np.random.default_rng(seed))
    distances = []
    with torch.no_grad():
        for _ in range(HORIZON):
            positions = move(positions, policy(torch.stack([positions, targets], 1)).mean)
            distances.append((positions - targets).abs().mean().item())
    return float(np.mean(distances[-5:]))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    policy = GaussianPolicy()
    optimizer = torch.optim.Adam(policy.parameters(), lr=3e-3)
    with nd.watch(policy, optimizer, **watch) as mon:
        for _ in range(steps):
            positions, targets = starts(EPISODES, rng)
            log_probs, rewards = [], []
            for _ in range(HORIZON):
                dist = policy(torch.stack([positions, targets], 1))
                if fixed:
                    actions = dist.sample()
                else:        # BUG: a reparameterised draw, log_prob sees mean + std * noise
                    actions = dist.rsample()
                log_probs.append(dist.log_prob(actions))
                positions = move(positions, actions.detach())
                rewards.append(-(positions - targets).abs())
            running, returns = torch.zeros(EPISODES), []
            for reward in reversed(rewards):
                running = reward + GAMMA * running
                returns.insert(0, running)
            returns = torch.stack(returns)
            advantages = returns - returns.mean()
            loss = -(torch.stack(log_probs) * advantages).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_distance = held_out_distance(policy)
    return mon
