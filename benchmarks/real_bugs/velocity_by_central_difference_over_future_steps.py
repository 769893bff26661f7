"""The observed steps' velocities and accelerations are taken with np.gradient over the WHOLE
trajectory, past and future, then sliced to the observed steps: np.gradient uses central
differences, so the last observed velocity is (p[t+1] - p[t-1]) / 2dt and its acceleration
reads p[t+2] - the features hold the first future positions. The model leans on them; at
deployment they can only be taken from the observed steps, and its forecasts degrade.

Reported: "Derivatives of velocities/acceleration" -
https://github.com/StanfordASL/Trajectron-plus-plus/issues/40 ("np.gradient uses the central
differences ... your velocity at time step t is computed from the positions at time steps t-1
and t+1 ... would have information about the future time steps (t+1 and t+2)"; the master
branch then took the derivatives with past differences, and #53 re-ran the benchmarks: ETH
ADE/FDE 0.43/0.86 -> 0.67/1.18). Here 2000 synthetic walkers (8 observed steps, 12 future, 0.4 s
apart), each observed step as position relative to the last observed one, velocity and
acceleration, an MLP to the future positions in that frame, Adam. Fix: the derivatives taken
over the observed steps only (as at test time).
Held-out ADE (derivatives from the observed steps): 1.07 m against 0.80 m (FDE 2.43 vs 2.03
m); seeds + 1000: 1.09 vs 0.86 m (FDE 2.49 vs 2.18 m).
"""
import numpy as np
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._traj import DT, FUTURE, PAST, ade, fde, mlp, split

TITLE = "Derivatives of velocities/acceleration"
LINK = "https://github.com/StanfordASL/Trajectron-plus-plus/issues/40"
EXPECTED = ("FEATURE_HOLDS_TARGET_VALUES", "FUTURE_LEAK")
STEPS = 300


def states(paths, whole_track):
    """(N, PAST * 6): each observed step's position (relative to the last observed one),
    velocity and acceleration."""
    track = paths if whole_track else paths[:, :PAST]
    velocity = np.gradient(track, DT, axis=1)
    acceleration = np.gradient(velocity, DT, axis=1)
    relative = paths[:, :PAST] - paths[:, PAST - 1:PAST]
    state = np.concatenate([relative, velocity[:, :PAST], acceleration[:, :PAST]], -1)
    return torch.from_numpy(state.reshape(len(paths), -1).astype(np.float32))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, test = split(np.random.default_rng(0))
    x = states(train, whole_track=not fixed)     # BUG when not fixed: derivatives read ahead
    y = torch.from_numpy((train[:, PAST:] - train[:, PAST - 1:PAST]).reshape(len(train), -1))
    model = mlp(6 * PAST, 2 * FUTURE)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    g = torch.Generator().manual_seed(int(torch.randint(10 ** 6, ())))
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            index = torch.randint(0, len(x), (64,), generator=g)
            loss = F.mse_loss(model(x[index]), y[index])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():       # held out: only the observed steps exist
        out = model(states(test, whole_track=False)).numpy()
    predicted = out.reshape(len(test), FUTURE, 2) + test[:, PAST - 1:PAST]
    mon.heldout_ade = ade(predicted, test[:, PAST:])
    mon.heldout_fde = fde(predicted, test[:, PAST:])
    return mon
