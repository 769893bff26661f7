"""The frame each sample is normalised in is centred on the mean of ALL its positions, past
AND future: the inputs (observed positions minus that origin) carry where the future lies -
the model learns to read it from the offset of the past to the origin, and the training
loss looks excellent; at deployment the future is unknown and the origin can only be
averaged over the observed steps, and the model's forecasts fall apart.

Reported: "About normalization" - https://github.com/Khrylx/AgentFormer/issues/5 ("the center
of both the past trajectory and the future trajectory is used to normalize the input data.
However, the future trajectory should not be available in the test. Is this data snooping?";
the author: "This is indeed an oversight on my part ... normalize with the positions at t=0",
and retrained). Here 2000 synthetic walkers (8 observed steps, 12 future, 0.4 s apart) in a
60 m world, an MLP from the observed positions to the future ones, both in the sample's frame,
Adam. Fix: the origin is the last observed position (known at test time).
Held-out ADE (origin from what is observed): 4.75 m against 0.97 m (FDE 8.63 vs 2.52 m);
seeds + 1000: 4.62 vs 1.00 m (FDE 8.45 vs 2.56 m).
"""
import numpy as np
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._traj import FUTURE, PAST, ade, fde, mlp, split

TITLE = "About normalization"
LINK = "https://github.com/Khrylx/AgentFormer/issues/5"
EXPECTED = ("FEATURE_HOLDS_TARGET_VALUES", "FUTURE_LEAK")
STEPS = 300


def origin(paths, fixed, observed_only=False):
    if fixed:
        return paths[:, PAST - 1:PAST]
    # BUG: the scene origin averages every position of the sample, the future's included
    seen = paths[:, :PAST] if observed_only else paths
    return seen.mean(1, keepdims=True)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, test = split(np.random.default_rng(0))
    centred = train - origin(train, fixed)
    x = torch.from_numpy(centred[:, :PAST].reshape(len(train), -1))
    y = torch.from_numpy(centred[:, PAST:].reshape(len(train), -1))
    model = mlp(2 * PAST, 2 * FUTURE)
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
    # held out: the future is not there, so the origin comes from the observed steps only
    o = origin(test, fixed, observed_only=True)
    with torch.no_grad():
        out = model(torch.from_numpy((test[:, :PAST] - o).reshape(len(test), -1)))
    predicted = out.numpy().reshape(len(test), FUTURE, 2) + o
    mon.heldout_ade = ade(predicted, test[:, PAST:])
    mon.heldout_fde = fde(predicted, test[:, PAST:])
    return mon
