"""Pieces shared by the beginner policy-gradient cases of batch 256 (REINFORCE and
actor-critic written the way first tutorials write them): whole episodes played on the
NumPy cart-pole of ``_policy_gradient`` (several copies at once, a finished copy's later
steps masked out), the returns to go, and the held-out score (the greedy policy's mean
episode length on starts no training episode began from, cut at 200).
"""
import numpy as np
import torch
from torch import nn
from torch.distributions import Categorical

from benchmarks.real_bugs._policy_gradient import ACTIONS, MAX_STEPS, OBSERVATION, \
    ActorCritic, CartPoles, held_out_length, policy_net  # noqa: F401


class SharedActorCritic(nn.Module):
    """One hidden layer shared by two heads, as in the Keras actor-critic example:
    ``forward`` gives (action logits, state value (N, 1))."""

    def __init__(self, hidden=128):
        super().__init__()
        self.common = nn.Sequential(nn.Linear(OBSERVATION, hidden), nn.ReLU())
        self.actor = nn.Linear(hidden, ACTIONS)
        self.critic = nn.Linear(hidden, 1)

    def forward(self, observations):
        h = self.common(observations)
        return self.actor(h), self.critic(h)


def play(env, model, episodes):
    """One episode on each of the ``episodes`` copies of ``env`` under ``model`` (a policy
    network, or a module returning (logits, values)). Returns a dict of (T, episodes)
    tensors: ``log_probs`` and ``entropy`` (with their graph), ``values`` (with their graph;
    None for a bare policy), ``rewards`` (0 after a copy's episode ended) and ``alive``
    (1 while the copy's first episode ran)."""
    observations = env.observe()
    out = {"log_probs": [], "entropy": [], "values": [], "rewards": [], "alive": []}
    running = np.ones(episodes, dtype=bool)
    for _ in range(MAX_STEPS):
        output = model(observations)
        logits, values = output if isinstance(output, tuple) else (output, None)
        dist = Categorical(logits=logits)
        actions = dist.sample()
        alive = torch.from_numpy(running.astype(np.float32))
        observations, reward, dones = env.step(actions.numpy())
        out["log_probs"].append(dist.log_prob(actions))
        out["entropy"].append(dist.entropy())
        out["values"].append(None if values is None else values[:, 0])
        out["rewards"].append(torch.from_numpy(reward) * alive)
        out["alive"].append(alive)
        running &= ~dones
        if not running.any():
            break
    batch = {key: (None if value[0] is None else torch.stack(value))
             for key, value in out.items()}
    return batch


def returns_to_go(rewards, gamma):
    """G_t = r_t + gamma * G_{t+1} over the (T, n) rewards, computed backwards."""
    running, returns = torch.zeros(rewards.shape[1]), []
    for t in reversed(range(len(rewards))):
        running = rewards[t] + gamma * running
        returns.insert(0, running)
    return torch.stack(returns)
