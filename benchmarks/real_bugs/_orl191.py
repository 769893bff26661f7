"""Shared pieces of real-bug batch 191 (model-based and offline RL written by hand).

A small linear-Gaussian control task logged as an offline dataset: a 4-dimensional state
``s' = A s + B a + noise``, a behaviour policy ``a = K s + noise``, a reward ``1 + w . s``
and episodes cut by a time limit after ``HORIZON`` steps (no true terminal state: the task
goes on, the logger just stops). Resets start far from where the dynamics settle, so the
value of a reset state differs from the value of the state a time limit cuts.

The behaviour policy's discounted value is known in closed form (the reward is linear and
the noise has mean zero): ``V(s) = 1/(1-gamma) + w^T (I - gamma M)^-1 s`` with
``M = A + B K``, which the held-out metrics compare a learned value against.
"""
import numpy as np
import torch
from torch import nn

DIM, HORIZON, GAMMA = 4, 8, 0.9
RESET_MEAN = np.array([3.0, -2.0, 2.0, 1.0])


def task(rng):
    """(A, B, K, w): a stable rotation-and-decay, a one-input actuator, a gain, a reward."""
    angle = 0.4
    rot = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    a_mat = np.zeros((DIM, DIM))
    a_mat[:2, :2], a_mat[2:, 2:] = 0.85 * rot, 0.8 * rot.T
    b_mat = rng.normal(0.0, 0.3, (DIM, 1))
    gain = rng.normal(0.0, 0.3, (1, DIM))
    weights = np.array([0.6, -0.4, 0.5, 0.3])
    return a_mat, b_mat, gain, weights


def true_value(states, a_mat, b_mat, gain, weights):
    m = a_mat + b_mat @ gain
    coef = np.linalg.solve((np.eye(DIM) - GAMMA * m).T, weights)
    return 1.0 / (1.0 - GAMMA) + states @ coef


def log_episodes(rng, episodes, a_mat, b_mat, gain, weights, noise=0.3):
    """The logged dataset as arrays: state, reward, next_state, terminal (always 0 here:
    the task never ends), timeout (1 on each episode's last step), and reset_next (the
    first state of the following episode, what a logger that reads the observation after
    the environment auto-resets stores as the next state of a time-limit step)."""
    rows = {k: [] for k in ("state", "reward", "next_state", "terminal", "timeout")}
    starts = []
    for _ in range(episodes):
        s = RESET_MEAN + rng.normal(0.0, 1.0, DIM)
        starts.append(s)
        for t in range(HORIZON):
            a = gain @ s + rng.normal(0.0, noise, 1)
            nxt = a_mat @ s + (b_mat @ a) + rng.normal(0.0, noise, DIM)
            rows["state"].append(s)
            rows["reward"].append(1.0 + weights @ s)
            rows["next_state"].append(nxt)
            rows["terminal"].append(0.0)
            rows["timeout"].append(1.0 if t == HORIZON - 1 else 0.0)
            s = nxt
    data = {k: torch.tensor(np.array(v), dtype=torch.float32) for k, v in rows.items()}
    # what an auto-resetting logger records as the next observation of a time-limit step
    reset_next = data["next_state"].clone()
    last = torch.nonzero(data["timeout"] > 0).squeeze(1)
    for i, row in enumerate(last.tolist()):
        following = starts[(i + 1) % len(starts)]
        reset_next[row] = torch.tensor(following, dtype=torch.float32)
    data["reset_next"] = reset_next
    return data


def value_net():
    return nn.Sequential(nn.Linear(DIM, 64), nn.Tanh(), nn.Linear(64, 64), nn.Tanh(),
                         nn.Linear(64, 1))


def value_rmse(net, data, a_mat, b_mat, gain, weights):
    """Root-mean-square error of the learned value against the closed-form one."""
    with torch.no_grad():
        pred = net(data["state"]).squeeze(1).numpy()
    truth = true_value(data["state"].numpy().astype(np.float64), a_mat, b_mat, gain, weights)
    return float(np.sqrt(np.mean((pred - truth) ** 2)))


SYNC_EVERY, BATCH, LR = 50, 128, 1e-3


def fitted_value_run(nd, next_key, done_of, steps, watch):
    """Offline TD(0) evaluation of the behaviour policy on 200 logged episodes: a value
    network, a target copy synced every SYNC_EVERY steps, Adam. ``next_key`` names the
    dataset column bootstrapped from, ``done_of(data, idx)`` the flag that stops it.
    Returns the closed monitor with ``held_out_value_rmse`` (50 fresh episodes)."""
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    a_mat, b_mat, gain, weights = task(rng)
    data = log_episodes(rng, 200, a_mat, b_mat, gain, weights)
    held = log_episodes(rng, 50, a_mat, b_mat, gain, weights)
    net, target_net = value_net(), value_net()
    target_net.load_state_dict(net.state_dict())
    optimizer = torch.optim.Adam(net.parameters(), lr=LR)
    rows = len(data["reward"])
    with nd.watch(net, optimizer, **watch) as mon:
        for step in range(steps):
            idx = torch.randint(0, rows, (BATCH,))
            with torch.no_grad():
                bootstrap = target_net(data[next_key][idx]).squeeze(1)
                target = data["reward"][idx] + GAMMA * (1.0 - done_of(data, idx)) * bootstrap
            loss = ((net(data["state"][idx]).squeeze(1) - target) ** 2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
            if (step + 1) % SYNC_EVERY == 0:
                target_net.load_state_dict(net.state_dict())
    mon.held_out_value_rmse = value_rmse(net, held, a_mat, b_mat, gain, weights)
    return mon
