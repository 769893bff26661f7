"""Shared pieces of real-bug batch 225 (trajectory and motion forecasting): synthetic agents
walking in a 60 m world frame (random start, heading, speed, a slowly drifting turn rate,
a few centimetres of tracking noise) sampled every 0.4 s, 8 observed and 12 future steps,
small networks and the held-out metrics the cases report (ADE / FDE in metres). Each case
keeps its bug in its own module."""
import numpy as np
import torch
from torch import nn

PAST, FUTURE, DT = 8, 12, 0.4
TRAIN, TEST = 2000, 500
WORLD = 60.0


def trajectories(n, rng, steps=PAST + FUTURE, noise=0.03):
    """(n, steps, 2) float32 absolute positions in metres (world frame)."""
    start = rng.uniform(0, WORLD, (n, 2))
    heading = rng.uniform(0, 2 * np.pi, n)
    speed = rng.uniform(0.8, 1.8, n)
    turn = rng.normal(0, 0.25, n)                       # rad/s, drifts a little per step
    pos = np.zeros((n, steps, 2))
    pos[:, 0] = start
    for t in range(1, steps):
        turn = turn + rng.normal(0, 0.05, n)
        heading = heading + turn * DT
        step = speed[:, None] * DT * np.stack([np.cos(heading), np.sin(heading)], 1)
        pos[:, t] = pos[:, t - 1] + step
    pos = pos + rng.normal(0, noise, pos.shape)
    return pos.astype(np.float32)


def split(rng):
    """Training and held-out trajectories (TRAIN and TEST agents)."""
    paths = trajectories(TRAIN + TEST, rng)
    return paths[:TRAIN], paths[TRAIN:]


def mlp(inputs, outputs, hidden=128):
    return nn.Sequential(nn.Linear(inputs, hidden), nn.ReLU(), nn.Linear(hidden, hidden),
                         nn.ReLU(), nn.Linear(hidden, outputs))


def ade(predicted, true):
    """Average displacement error (metres) of (N, T, 2) arrays or tensors."""
    return float(torch.as_tensor(predicted - true).norm(dim=-1).mean())


def fde(predicted, true):
    """Final displacement error (metres): the last future step only."""
    return float(torch.as_tensor(predicted[:, -1] - true[:, -1]).norm(dim=-1).mean())
