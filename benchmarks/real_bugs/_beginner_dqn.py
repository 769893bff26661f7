"""The first-tutorial DQN the batch-245 cases share, on the digit chain of ``_value_rl``.

The environment, the Q-network, the replay of every transition and the held-out greedy
evaluation are ``_value_rl``'s (32 digit-chain episodes stepped together: name the 8x8
digit for NAME_REWARD and carry on, or cash out for CASH_REWARD and stop; a greedy return
of 1.0 means "cash out at once", about 3 means the agent learned to name digits). What a
beginner's loop writes by hand, and what the cases here get wrong, is left to arguments:

- ``epsilon(step, steps, epsilon)``: the exploration rate used at each environment step
  (given the step, the run's length and the previous rate); the default anneals linearly
  from 1 to 0.05 over the first half of the run;
- ``update_every``: one optimizer step every so many environment steps (default: every);
- ``reward_scale``: the factor the stored rewards are multiplied by before the TD goal;
- ``goal``: the TD goal ``goal(target, batch)`` (default ``r + gamma * (1 - end) * max Q'``).

``train`` returns the closed monitor with ``greedy_return`` and ``cash_out_rate`` set.
"""
import copy

import numpy as np
import torch

import nndebug as nd
from benchmarks.real_bugs import _value_rl as rl
from benchmarks.real_bugs._common import classification


def linear_epsilon(step, steps, epsilon):
    return max(0.05, 1.0 - step / (0.5 * steps))


def masked_goal(target, batch):
    """r + gamma * (1 - end) * max_a Q_target(s', a)."""
    with torch.no_grad():
        ahead = target(batch["s2"]).max(1).values
        return batch["r"] + rl.GAMMA * ahead * (~batch["end"]).float()


def train(steps, watch, epsilon=linear_epsilon, update_every=1, reward_scale=1.0,
          goal=masked_goal, env_steps=None):
    """``env_steps`` environment steps (default ``steps * update_every``)."""
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x, y = classification()
    held = torch.from_numpy(np.random.default_rng(7).permutation(len(x)))
    test, train_rows = held[:500], held[500:]
    online = rl.q_network()
    target = copy.deepcopy(online)
    optimizer = torch.optim.Adam(online.parameters(), lr=rl.LR)
    env = rl.DigitChain(x[train_rows], y[train_rows], rng)
    replay = rl.Replay()
    env_steps = steps * update_every if env_steps is None else env_steps
    rate, updates = 1.0, 0
    with nd.watch(online, optimizer, **watch) as mon:
        for step in range(env_steps):
            states = env.states()
            rate = epsilon(step, env_steps, rate)
            with torch.no_grad():
                actions = online(states).argmax(1)
            explore = torch.from_numpy(rng.random(rl.ENVS) < rate)
            actions = torch.where(explore, torch.from_numpy(rng.integers(0, rl.ACTIONS, rl.ENVS)),
                                  actions)
            rewards, ended = env.step(actions)
            replay.add(dict(zip(rl.KEYS, (states, actions, rewards * reward_scale,
                                          env.states(), ended))))
            if (step + 1) % update_every:
                continue
            batch = replay.sample(rng, rl.BATCH)
            value = rl.chosen_loss(online, batch, goal(target, batch))
            optimizer.zero_grad()
            value.backward()
            optimizer.step()
            mon.step(value)
            updates += 1
            if updates % rl.SYNC_EVERY == 0:
                target.load_state_dict(online.state_dict())
    mon.greedy_return, mon.cash_out_rate = rl.greedy_return(online, x[test], y[test])
    mon.final_epsilon = rate
    return mon
