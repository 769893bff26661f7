"""The hand-written PPO loop batch 294's cases share: the loop a first PPO tutorial builds
(one rollout of a few cart-poles, GAE with done masks, returns = advantages + values,
advantages standardised, several epochs of shuffled minibatches over the rollout, the
clipped surrogate, a value loss and an entropy bonus, gradients clipped at 0.5).

The cart-pole, the two small networks and the held-out score come from
``benchmarks/real_bugs/_policy_gradient.py``. Each case passes the one piece its report
got wrong (how the advantages are computed or standardised, or the minibatch loss); the
pieces below are the correct ones its fixed twin uses.
"""
import numpy as np
import torch
from torch.distributions import Categorical

import nndebug as nd
from benchmarks.real_bugs._policy_gradient import ActorCritic, CartPoles

GAMMA, LAMBDA, CLIP, VALUE_COEF, ENTROPY_COEF = 0.99, 0.95, 0.2, 0.5, 0.01


def collect(env, model, observations, horizon):
    """``horizon`` steps of every copy of ``env`` under ``model``, stored the way the
    tutorials store them: per step a row over the copies. ``dones[t]`` is 1 where the step
    taken at t ended its episode (the copy restarted, so ``obs[t + 1]`` is a new episode's
    first state). Returns a dict of (T, n) tensors (obs (T, n, 4)), the next observations
    and the value of the state after the last step."""
    keys = ("obs", "actions", "log_probs", "values", "rewards", "dones")
    out = {key: [] for key in keys}
    with torch.no_grad():
        for _ in range(horizon):
            logits, values = model(observations)
            dist = Categorical(logits=logits)
            actions = dist.sample()
            next_observations, rewards, done = env.step(actions.numpy())
            row = (observations, actions, dist.log_prob(actions), values[:, 0],
                   torch.from_numpy(rewards), torch.from_numpy(done.astype(np.float32)))
            for key, value in zip(keys, row):
                out[key].append(value)
            observations = next_observations
        last_values = model(observations)[1][:, 0]
    return {key: torch.stack(value) for key, value in out.items()}, observations, last_values


def gae(rewards, values, dones, last_values):
    """Generalised advantage estimates over (T, n) tensors: the step at t bootstraps from
    the next state's value unless it ended its episode (``dones[t]``), and the running sum
    is cut there too. Returns (advantages, returns), returns = advantages + values."""
    steps = len(rewards)
    advantages = torch.zeros_like(rewards)
    running = torch.zeros_like(last_values)
    for t in reversed(range(steps)):
        next_values = last_values if t == steps - 1 else values[t + 1]
        not_done = 1.0 - dones[t]
        delta = rewards[t] + GAMMA * next_values * not_done - values[t]
        running = delta + GAMMA * LAMBDA * not_done * running
        advantages[t] = running
    return advantages, advantages + values


def standardise(advantages):
    """Zero mean, unit spread over the whole rollout (every step of every copy)."""
    return (advantages - advantages.mean()) / (advantages.std() + 1e-8)


def ppo_loss(model, states, actions, old_log_probs, advantages, returns):
    """The clipped surrogate, half the squared value error and the entropy bonus, every
    term per sample of shape (B,)."""
    logits, values = model(states)
    dist = Categorical(logits=logits)
    ratio = torch.exp(dist.log_prob(actions) - old_log_probs)
    surrogate = torch.min(ratio * advantages,
                          ratio.clamp(1 - CLIP, 1 + CLIP) * advantages)
    value_loss = (values.squeeze(-1) - returns).pow(2).mean()
    return -surrogate.mean() + VALUE_COEF * value_loss - ENTROPY_COEF * dist.entropy().mean()


def shuffle(rng, *tensors):
    """The tensors reordered by one permutation of their rows, drawn from ``rng``."""
    order = torch.from_numpy(rng.permutation(len(tensors[0])))
    return tuple(tensor[order] for tensor in tensors)


def shuffle_rollout(rng, states, actions, old_log_probs, advantages, returns):
    """Every tensor of the flattened rollout shuffled together, row i still one sample."""
    return shuffle(rng, states, actions, old_log_probs, advantages, returns)


def train(steps, envs=8, horizon=64, epochs=4, minibatches=4, lr=1e-3, advantages_of=gae,
          standardise_of=standardise, loss_of=ppo_loss, shuffle_of=shuffle_rollout, seed=0,
          **watch):
    """PPO on ``envs`` cart-poles under ``nd.watch``; ``steps`` optimizer steps in all.
    ``advantages_of(rewards, values, dones, last_values)`` gives (advantages, returns) as
    (T, n) tensors; ``standardise_of`` standardises the advantages (given (T, n), it
    returns them in any shape that flattens to T * n in the same order); ``shuffle_of``
    reorders the flattened rollout every epoch; ``loss_of`` is the minibatch loss, on
    consecutive slices of the shuffled rollout. Returns the closed monitor and the model."""
    torch.manual_seed(seed)
    env = CartPoles(envs, seed=seed)
    model = ActorCritic()
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    order_rng = np.random.default_rng(seed)
    observations = env.observe()
    taken = 0
    with nd.watch(model, optimizer, **watch) as mon:
        while taken < steps:
            batch, observations, last_values = collect(env, model, observations, horizon)
            advantages, returns = advantages_of(batch["rewards"], batch["values"],
                                                batch["dones"], last_values)
            advantages = standardise_of(advantages).reshape(-1)
            states, actions = batch["obs"].reshape(-1, 4), batch["actions"].reshape(-1)
            old_log_probs, returns = batch["log_probs"].reshape(-1), returns.reshape(-1)
            size = len(actions) // minibatches
            for _ in range(epochs):
                shuffled = shuffle_of(order_rng, states, actions, old_log_probs, advantages,
                                      returns)
                for start in range(0, len(actions), size):
                    loss = loss_of(model, *(tensor[start:start + size] for tensor in shuffled))
                    optimizer.zero_grad()
                    loss.backward()
                    torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
                    optimizer.step()
                    mon.step(loss)
                    taken += 1
                    if taken == steps:
                        break
                if taken == steps:
                    break
    return mon, model
