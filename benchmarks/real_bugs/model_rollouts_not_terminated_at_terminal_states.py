"""Model-based offline RL whose imagined rollouts never end: branches rolled out in a learned
dynamics model keep going after the imagined state has left the region where the real
task ends (a fallen robot), still earning the per-step alive reward, and are stored as
non-terminal transitions. The value network trained on them learns that states next to
the edge are as good as any - it is regressing onto targets the model made up, so its
loss falls like the fixed run's.

Reported: "Reproduce MOPO results" - https://github.com/takuseno/d3rlpy/issues/101 (MOPO
in d3rlpy could not reach the paper's Hopper scores; a later comment found that it "does
not terminate its model rollout at terminal states", where the original MOPO applies the
true environment's termination function to each generated state and ends the rollout
there, and that adding the termination brought the results closer to the original). Here
a cart-on-a-hill task (position and velocity, an unstable pull away from the centre, a
weak noisy behaviour controller; the episode ends when the position leaves [-1, 1];
reward 1 for every step that does not end it, gamma 0.9): 300 logged episodes of up to 30
steps; a linear dynamics model fitted to them by least squares; 2000 branches of 5
imagined steps from logged states under the behaviour policy; a value network learns the
behaviour policy's value by TD(0) from batches of 95% imagined and 5% logged transitions
(target copy synced every 50 steps, Adam 1e-3). Bug: imagined transitions are never
terminal. Fix: the task's termination function marks an imagined step that leaves
[-1, 1] as terminal (reward 0) and the branch stops there.

Measured (RMSE of the learned value against Monte Carlo returns of the behaviour policy in
the real task from 500 held-out logged states; values lie between 0 and 10): seed 0:
3.6 with the bug against 0.39 fixed (the bug's values 2.8 too high on average); seeds
shifted by 1000: 3.6 against 0.36 (2.8 too high).
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd

TITLE = "Reproduce MOPO results"
LINK = "https://github.com/takuseno/d3rlpy/issues/101"
EXPECTED = ("MODEL_ROLLOUTS_IGNORE_TERMINATION",)
STEPS = 1500
GAMMA, EDGE, HORIZON, BRANCH_STEPS = 0.9, 1.0, 30, 5
PULL = 2.0                    # the hill: how hard the cart is pulled away from the centre
SYNC_EVERY, BATCH, MODEL_SHARE = 50, 128, 0.95


def behaviour(states, rng):
    return -1.0 * states[:, :1] - 0.5 * states[:, 1:] + rng.normal(0.0, 0.5, (len(states), 1))


def real_step(states, actions, rng):
    x, v = states[:, :1], states[:, 1:]
    nxt_v = 0.98 * v + 0.1 * (actions + PULL * x) + rng.normal(0.0, 0.05, v.shape)
    return np.concatenate([x + 0.1 * v, nxt_v], 1)


def ended(states):
    return np.abs(states[:, 0]) > EDGE


def log_dataset(rng, episodes):
    rows = {k: [] for k in ("state", "action", "reward", "next_state", "done")}
    s = np.stack([rng.uniform(-0.8, 0.8, episodes), rng.normal(0.0, 0.3, episodes)], 1)
    alive = np.ones(episodes, bool)
    for _ in range(HORIZON):
        a = behaviour(s, rng)
        nxt = real_step(s, a, rng)
        done = ended(nxt)
        for k, val in (("state", s), ("action", a), ("reward", (~done).astype(float)),
                       ("next_state", nxt), ("done", done.astype(float))):
            rows[k].append(val[alive])
        alive &= ~done
        s = nxt
    return {k: np.concatenate(v) for k, v in rows.items()}


def monte_carlo_value(states, rng, rollouts=32, length=60):
    s = np.repeat(states, rollouts, 0)
    alive, total, disc = np.ones(len(s), bool), np.zeros(len(s)), 1.0
    for _ in range(length):
        nxt = real_step(s, behaviour(s, rng), rng)
        done = ended(nxt)
        total += disc * (alive & ~done)
        alive &= ~done
        disc *= GAMMA
        s = nxt
    return total.reshape(len(states), rollouts).mean(1)


def imagine(rng, data, model, terminate):
    """Branches of BRANCH_STEPS steps in the fitted linear model from logged states."""
    pick = rng.integers(0, len(data["state"]), 2000)
    s = data["state"][pick]
    alive = np.ones(len(s), bool)
    rows = {k: [] for k in ("state", "reward", "next_state", "done")}
    for _ in range(BRANCH_STEPS):
        a = behaviour(s, rng)
        nxt = np.concatenate([s, a], 1) @ model + rng.normal(0.0, 0.05, s.shape)
        done = ended(nxt) if terminate else np.zeros(len(s), bool)
        for k, val in (("state", s), ("reward", (~done).astype(float)), ("next_state", nxt),
                       ("done", done.astype(float))):
            rows[k].append(val[alive])
        if terminate:
            alive &= ~done
        s = nxt
    return {k: torch.tensor(np.concatenate(v), dtype=torch.float32) for k, v in rows.items()}


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    data = log_dataset(rng, 300)
    held = log_dataset(rng, 100)
    inputs = np.concatenate([data["state"], data["action"]], 1)
    model = np.linalg.lstsq(inputs, data["next_state"], rcond=None)[0]   # the world model
    # fixed: the task's termination function ends imagined branches; BUG: never terminal
    fake = imagine(rng, data, model, terminate=fixed)
    real = {k: torch.tensor(data[k], dtype=torch.float32)
            for k in ("state", "reward", "next_state", "done")}
    net = nn.Sequential(nn.Linear(2, 64), nn.Tanh(), nn.Linear(64, 64), nn.Tanh(),
                        nn.Linear(64, 1))
    target_net = nn.Sequential(nn.Linear(2, 64), nn.Tanh(), nn.Linear(64, 64), nn.Tanh(),
                               nn.Linear(64, 1))
    target_net.load_state_dict(net.state_dict())
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
    n_fake = int(BATCH * MODEL_SHARE)
    with nd.watch(net, optimizer, **watch) as mon:
        for step in range(steps):
            i = torch.randint(0, len(fake["state"]), (n_fake,))
            j = torch.randint(0, len(real["state"]), (BATCH - n_fake,))
            batch = {k: torch.cat([fake[k][i], real[k][j]]) for k in fake}
            with torch.no_grad():
                target = batch["reward"] + GAMMA * (1.0 - batch["done"]) * \
                    target_net(batch["next_state"]).squeeze(1)
            loss = ((net(batch["state"]).squeeze(1) - target) ** 2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
            if (step + 1) % SYNC_EVERY == 0:
                target_net.load_state_dict(net.state_dict())
    states = held["state"][rng.permutation(len(held["state"]))[:500]]
    truth = monte_carlo_value(states, rng)
    with torch.no_grad():
        pred = net(torch.tensor(states, dtype=torch.float32)).squeeze(1).numpy()
    mon.held_out_value_rmse = float(np.sqrt(np.mean((pred - truth) ** 2)))
    mon.held_out_value_bias = float(np.mean(pred - truth))
    return mon
