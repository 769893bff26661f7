"""A small synthetic environment and the pieces the hand-written policy-gradient and
actor-critic cases of batch 124 share (REINFORCE, A2C, PPO): a cart-pole written out in
NumPy (the classic equations, the pole falls past 12 degrees or the cart leaves +-2.4,
episodes cut at 200 steps), batched over several copies that restart by themselves, small
policy and value networks, and a held-out score (the greedy policy's mean episode length
on starts the training never saw). Each case keeps its own loss and its own bug.
"""
import numpy as np
import torch
from torch import nn
from torch.distributions import Categorical

import nndebug as nd

GRAVITY, CART_MASS, POLE_MASS, POLE_HALF_LENGTH = 9.8, 1.0, 0.1, 0.5
FORCE, TAU = 10.0, 0.02
ANGLE_LIMIT, POSITION_LIMIT = 12 * 2 * np.pi / 360, 2.4
MAX_STEPS = 200
OBSERVATION, ACTIONS = 4, 2


class CartPoles:
    """``n`` cart-poles stepped together. ``step(actions)`` returns (observations, rewards,
    dones): reward 1 for every step taken, ``done`` when the pole fell, the cart left the
    track or 200 steps passed; a finished copy restarts at once, so the observation
    returned for it is the first of its next episode."""

    def __init__(self, n, seed):
        self.rng = np.random.default_rng(seed)
        self.state = self.rng.uniform(-0.05, 0.05, (n, 4))
        self.steps = np.zeros(n, dtype=np.int64)

    def observe(self):
        return torch.from_numpy(self.state.astype(np.float32))

    def step(self, actions):
        x, x_dot, theta, theta_dot = self.state.T
        force = np.where(np.asarray(actions) == 1, FORCE, -FORCE)
        cos, sin = np.cos(theta), np.sin(theta)
        total = CART_MASS + POLE_MASS
        temp = (force + POLE_MASS * POLE_HALF_LENGTH * theta_dot ** 2 * sin) / total
        theta_acc = (GRAVITY * sin - cos * temp) / (
            POLE_HALF_LENGTH * (4.0 / 3.0 - POLE_MASS * cos ** 2 / total))
        x_acc = temp - POLE_MASS * POLE_HALF_LENGTH * theta_acc * cos / total
        x, x_dot = x + TAU * x_dot, x_dot + TAU * x_acc
        theta, theta_dot = theta + TAU * theta_dot, theta_dot + TAU * theta_acc
        self.state = np.stack([x, x_dot, theta, theta_dot], axis=1)
        self.steps += 1
        dones = (np.abs(x) > POSITION_LIMIT) | (np.abs(theta) > ANGLE_LIMIT) | \
            (self.steps >= MAX_STEPS)
        if dones.any():
            self.state[dones] = self.rng.uniform(-0.05, 0.05, (int(dones.sum()), 4))
            self.steps[dones] = 0
        return self.observe(), np.ones(len(dones), dtype=np.float32), dones


def policy_net(hidden=64):
    return nn.Sequential(nn.Linear(OBSERVATION, hidden), nn.Tanh(),
                         nn.Linear(hidden, ACTIONS))


def value_net(hidden=64):
    return nn.Sequential(nn.Linear(OBSERVATION, hidden), nn.Tanh(), nn.Linear(hidden, 1))


class ActorCritic(nn.Module):
    """Two separate networks in one module (one optimizer trains both): ``actor`` gives
    the action logits, ``critic`` the state value, shape (N, 1)."""

    def __init__(self, hidden=64):
        super().__init__()
        self.actor = policy_net(hidden)
        self.critic = value_net(hidden)

    def forward(self, observations):
        return self.actor(observations), self.critic(observations)


def held_out_length(actor, episodes=50, seed=12345, sample=None):
    """The greedy policy's mean episode length (1-200) over ``episodes`` starts drawn from
    a generator the training never used. ``sample``: a function of the network's output
    that draws actions (the stochastic policy as trained) instead of the greedy argmax."""
    env = CartPoles(episodes, seed)
    lengths = np.zeros(episodes)
    finished = np.zeros(episodes, dtype=bool)
    with torch.no_grad():
        for _ in range(MAX_STEPS):
            logits = actor(env.observe())
            logits = logits[0] if isinstance(logits, tuple) else logits
            actions = logits.argmax(1) if sample is None else sample(logits)
            _, _, dones = env.step(actions.numpy())
            lengths += ~finished
            finished |= dones
            if finished.all():
                break
    return float(lengths.mean())


def gae(rewards, values, last_values, starts, last_done, gamma=0.99, lam=0.95):
    """Advantages and returns of a rollout of T steps over n copies, the way the
    on-policy loops of stable-baselines3 and CleanRL compute them: ``starts[t]`` says the
    observation at step t began a new episode (so step t-1 was the last of its episode),
    ``last_done`` the same of the observation after the rollout. All (T, n) tensors."""
    steps = len(rewards)
    advantages = torch.zeros_like(rewards)
    running = torch.zeros_like(last_values)
    for t in reversed(range(steps)):
        if t == steps - 1:
            next_non_terminal, next_values = 1.0 - last_done, last_values
        else:
            next_non_terminal, next_values = 1.0 - starts[t + 1], values[t + 1]
        delta = rewards[t] + gamma * next_values * next_non_terminal - values[t]
        running = delta + gamma * lam * next_non_terminal * running
        advantages[t] = running
    return advantages, advantages + values


def rollout(env, model, observations, first, horizon):
    """``horizon`` steps of every copy of ``env`` under ``model`` (an ActorCritic), from
    ``observations`` whose episode-start flags are ``first`` (n,). Returns a dict of (T, n)
    tensors - obs (T, n, 4), actions, log_probs, values, rewards, ``starts`` (the
    observation at t began an episode) and ``dones`` (the step at t ended one) - and the
    observations, flags and values after the last step."""
    keys = ("obs", "actions", "log_probs", "values", "rewards", "starts", "dones")
    out = {key: [] for key in keys}
    with torch.no_grad():
        for _ in range(horizon):
            logits, values = model(observations)
            dist = torch.distributions.Categorical(logits=logits)
            actions = dist.sample()
            next_observations, rewards, dones = env.step(actions.numpy())
            dones = torch.from_numpy(dones.astype(np.float32))
            for key, value in zip(keys, (observations, actions, dist.log_prob(actions),
                                         values[:, 0], torch.from_numpy(rewards), first,
                                         dones)):
                out[key].append(value)
            observations, first = next_observations, dones
        last_values = model(observations)[1][:, 0]
    return {key: torch.stack(value) for key, value in out.items()}, observations, first, \
        last_values


def train_ppo(steps, lr, epochs, advantages_of, policy_loss_of, envs=8, horizon=64,
              **watch):
    """PPO on ``envs`` cart-poles under ``nd.watch``: rollouts of ``horizon`` steps, their
    advantages from ``advantages_of(batch, last_values, first)`` standardised, then
    ``epochs`` passes of ``policy_loss_of(ratio, advantages)`` plus half the value error and
    a 0.01 entropy bonus, gradients clipped at 0.5; ``steps`` optimizer steps in all. The
    cases put their bug in one of the two functions. Returns the closed monitor and the
    model."""
    torch.manual_seed(0)
    env = CartPoles(envs, seed=0)
    model = ActorCritic()
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    observations, first = env.observe(), torch.ones(envs)
    taken = 0
    with nd.watch(model, optimizer, **watch) as mon:
        while taken < steps:
            batch, observations, first, last_values = rollout(env, model, observations,
                                                              first, horizon)
            advantages, returns = advantages_of(batch, last_values, first)
            states, actions = batch["obs"].reshape(-1, 4), batch["actions"].reshape(-1)
            old_log_probs, returns = batch["log_probs"].reshape(-1), returns.reshape(-1)
            advantages = advantages.reshape(-1)
            advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
            for _ in range(epochs):
                logits, values = model(states)
                dist = Categorical(logits=logits)
                ratio = (dist.log_prob(actions) - old_log_probs).exp()
                loss = policy_loss_of(ratio, advantages) + \
                    0.5 * (values[:, 0] - returns).pow(2).mean() - 0.01 * dist.entropy().mean()
                optimizer.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
                optimizer.step()
                mon.step(loss)
                taken += 1
                if taken == steps:
                    break
    return mon, model
