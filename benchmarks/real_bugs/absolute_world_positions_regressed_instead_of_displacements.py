"""A trajectory forecaster fed the observed positions in WORLD metres (tens of metres from the
map origin) and trained to output the future positions in world metres too, instead of the
per-step displacements: the inputs and targets are ~30 m in size while the motion to learn is
a fraction of a metre per step, so the network spends its training on reproducing where the
walker is and forecasts the motion badly.

Reported: "Question about the loss" - https://github.com/abduallahmohamed/Social-STGCNN/issues/42
(the loss is on relative positions, not on positions as in the paper; the maintainer: "The
positions are in meters domain, for example pedestrian 1 is at (7.30,6.5) while pedestrian 2
is at (0.3,22.5). If you trained a deep model using these numbers you will not converge
because of the magnitude of the coordinates. Thus usage of relative positions is indeed
important ... eventually at the evaluation stage these relative positions is turned into
absolute positions"). Here 2000 synthetic walkers (8 observed steps, 12 future, 0.4 s apart)
in a 60 m world, an MLP, MSE, Adam. Fix: the observed displacements in, the future
displacements out, summed onto the last observed position for the metric.
Held-out ADE: 3.11 m against 0.77 m (FDE 5.37 vs 1.96 m); seeds + 1000: 3.50 vs 0.81 m (FDE
5.80 vs 1.94 m).
"""
import numpy as np
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._traj import FUTURE, PAST, ade, fde, mlp, split

TITLE = "Question about the loss"
LINK = "https://github.com/abduallahmohamed/Social-STGCNN/issues/42"
EXPECTED = ("UNNORMALIZED_INPUTS", "TARGETS_UNSCALED")
STEPS = 300


def encode(paths, fixed):
    """(inputs, targets) as flat tensors: displacements when fixed, world positions if not."""
    if fixed:
        steps = np.diff(paths, axis=1, prepend=paths[:, :1])
        x, y = steps[:, :PAST], steps[:, PAST:]
    else:   # BUG: absolute world coordinates in and out
        x, y = paths[:, :PAST], paths[:, PAST:]
    n = len(paths)
    return torch.from_numpy(x.reshape(n, -1)), torch.from_numpy(y.reshape(n, -1))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, test = split(np.random.default_rng(0))
    x, y = encode(train, fixed)
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
    with torch.no_grad():
        out = model(encode(test, fixed)[0]).numpy().reshape(len(test), FUTURE, 2)
    predicted = out.cumsum(1) + test[:, PAST - 1:PAST] if fixed else out
    mon.heldout_ade = ade(predicted, test[:, PAST:])
    mon.heldout_fde = fde(predicted, test[:, PAST:])
    return mon
