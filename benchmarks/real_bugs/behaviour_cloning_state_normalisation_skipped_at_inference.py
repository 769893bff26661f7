"""A behaviour-cloning policy trained on normalised robot states and run on raw ones: the
dataset pipeline standardises each state feature with the dataset's mean and std before
the policy sees it, but the inference path returns early before that step (it only
normalises when an action is present, and at inference the action is what the model must
produce). Training is flawless - loss, gradients and updates are those of a healthy run -
while every state the deployed policy sees lies tens of standard deviations outside what
it was trained on, and its actions land far outside the expert's range.

Reported: "fix(ActionNorm): do not skip state normalization at inference" -
https://github.com/dexmal/dexbotic/pull/82 (the normaliser returned early when the sample
had no "action" key, which is always so at inference, skipping the per-key loop that also
normalises "state"; released checkpoints saw out-of-distribution states and "collapse to
biased actions", 0% success on LIBERO; the fix removes the early return so the state is
normalised at inference as in training). Here an offline dataset of 4000 (state, action)
pairs from an expert controller: 6 joint readings in their own units (means from -20 to
120, stds from 0.5 to 30), a 2-dimensional action that is a smooth nonlinear function of
the normalised state; an MLP policy trained by MSE on normalised states (Adam 1e-3,
batches of 64). Bug: held-out states reach the policy raw. Fix: normalised with the
training statistics.

Measured (mean squared action error on 1000 held-out states; the expert's actions lie
within +-0.8): seed 0: 76 with the bug against 0.0037 fixed; seeds shifted by 1000: 71
against 0.0040.
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd

TITLE = "fix(ActionNorm): do not skip state normalization at inference"
LINK = "https://github.com/dexmal/dexbotic/pull/82"
EXPECTED = ("INPUT_NORMALISATION_SKIPPED_AT_INFERENCE",)
STEPS = 600
MEANS = np.array([120.0, -20.0, 3.0, 45.0, 0.5, -7.0])
STDS = np.array([30.0, 5.0, 0.5, 12.0, 2.0, 4.0])


def expert(unit_states, mix):
    """The expert's action from a standardised state: smooth, bounded, nonlinear."""
    return np.tanh(unit_states @ mix) * 0.8


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    mix = rng.normal(0.0, 0.5, (6, 2))
    unit = rng.normal(0.0, 1.0, (5000, 6))
    raw = MEANS + STDS * unit
    actions = expert(unit, mix) + rng.normal(0.0, 0.05, (5000, 2))
    train_raw, held_raw = raw[:4000], raw[4000:]
    mean, std = train_raw.mean(0), train_raw.std(0)       # the dataset's statistics
    states = torch.tensor((train_raw - mean) / std, dtype=torch.float32)
    targets = torch.tensor(actions[:4000], dtype=torch.float32)
    policy = nn.Sequential(nn.Linear(6, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(),
                           nn.Linear(64, 2))
    optimizer = torch.optim.Adam(policy.parameters(), lr=1e-3)
    with nd.watch(policy, optimizer, **watch) as mon:
        for _ in range(steps):
            idx = torch.randint(0, len(states), (64,))
            loss = ((policy(states[idx]) - targets[idx]) ** 2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    if fixed:            # inference normalises the state as training did
        held = (held_raw - mean) / std
    else:                # BUG: the early return leaves the state raw at inference
        held = held_raw
    with torch.no_grad():
        pred = policy(torch.tensor(held, dtype=torch.float32)).numpy()
    mon.held_out_action_mse = float(np.mean((pred - actions[4000:]) ** 2))
    return mon
