"""REINFORCE's loss averages the episode's log-probabilities into ONE number before weighing
them by the returns: ``log_probs.mean() * returns`` instead of ``log_probs * returns``.
Every action of the episode is then credited with the sum of every step's return, so a
good action taken early and a bad one taken late are pushed alike; the policy gradient
loses which step earned what, and the agent learns only what is common to whole episodes.

Reported: "[Bug Report] Bad REINFORCE implementation for Mujoco Tutorial" -
https://github.com/Farama-Foundation/Gymnasium/issues/1336 (the tutorial's update computes
``log_prob_mean = log_probs.mean()`` and then ``loss = -torch.sum(log_prob_mean * deltas)``;
the reporter: the error "occurs because it first computes the mean of the log-probabilities
and then multiplies it by" the returns; fixed by PR #1337, "The probability averaging was
removed, ensuring a more accurate policy gradient update"). Here the tutorial's update, in
torch, on episodes of 25 steps (the tutorial's Mujoco episodes are far longer): each step
shows a digit (8x8) and pays 1 for naming it, returns to go with gamma 0.9 standardised
over the batch, one loss per episode as in the tutorial, the losses of 8 episodes averaged
per optimizer step. Fix: ``loss = -torch.sum(log_probs * deltas)``.

Measured (200 steps, the last 20 steps' reward per action): the bug's agent names 0.28 of
the digits, the fixed twin 0.66 (chance: 0.10).

How watch finds it: on the first recorded steps the shared walk of the loss's graph finds
a product one of whose operands is a whole reduction (mean or sum to one number) of many
picked log-probabilities of a distribution, and whose result has more than one entry: one
pooled log-probability times a vector of weights (LOG_PROBS_POOLED_BEFORE_WEIGHTING).
"""
import numpy as np
import torch
from torch import nn
from torch.distributions import Categorical

import nndebug as nd
from benchmarks.real_bugs._common import classification

TITLE = "[Bug Report] Bad REINFORCE implementation for Mujoco Tutorial"
LINK = "https://github.com/Farama-Foundation/Gymnasium/issues/1336"
EXPECTED = ("LOG_PROBS_POOLED_BEFORE_WEIGHTING",)
STEPS = 200
HORIZON, EPISODES, GAMMA = 25, 8, 0.9


def returns_to_go(rewards):
    running, returns = 0.0, []
    for reward in reversed(rewards):
        running = reward + GAMMA * running
        returns.insert(0, running)
    return torch.tensor(returns)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x, y = classification()
    policy = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
    optimizer = torch.optim.Adam(policy.parameters(), lr=3e-3)
    paid = []
    with nd.watch(policy, optimizer, **watch) as mon:
        for _ in range(steps):
            rows = torch.from_numpy(rng.integers(0, len(x), (EPISODES, HORIZON)))
            dist = Categorical(logits=policy(x[rows]))      # every step of every episode
            actions = dist.sample()
            rewards = (actions == y[rows]).float()
            all_log_probs = dist.log_prob(actions)           # (EPISODES, HORIZON)
            returns = torch.stack([returns_to_go(r) for r in rewards.tolist()])
            returns = (returns - returns.mean()) / (returns.std() + 1e-8)
            loss = 0.0
            for episode in range(EPISODES):                  # the tutorial's update, per episode
                deltas = returns[episode]
                log_probs = all_log_probs[episode]
                if fixed:
                    loss = loss - torch.sum(log_probs * deltas)
                else:
                    log_prob_mean = log_probs.mean()    # BUG: one number for the episode
                    loss = loss - torch.sum(log_prob_mean * deltas)
            loss = loss / EPISODES
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
            paid.append(rewards.mean().item())
    mon.final_reward = float(np.mean(paid[-20:]))
    return mon
