"""A Schrodinger-bridge conditional flow matching step (the path mu_t = t x1 + (1 - t) x0
with noise of scale sigma * sqrt(t (1 - t)), its target u_t = (1 - 2t) / (2 t (1 - t)) *
(x - mu_t) + x1 - x0) that builds the whole batch's points and targets and then runs the
network and the loss on row 0 alone: ``net(t[:1], x[:1])`` against ``ut[:1]``, a leftover of
an experiment that averaged the target over the batch. Each optimizer step learns from one
point; the loss still falls (noisily) and nothing errors, and after the same number of steps
the field has seen 1/256 of the data the twin has: its samples are a smeared cloud.

Reported: "`sbcfm` cannot perform well" -
https://github.com/atong01/conditional-flow-matching/issues/24 (the generated samples "are
just noise"; the maintainer: "This means that you're actually only training on one point in
the batch", the remnant of averaging over the batch, fixed to train like the CFM module).
Here the two-moons cloud of ``_rf342`` with standard Gaussian noise as x0, sigma = 0.1, an
MLP v(x, t), Adam at 1e-3, batches of 256, 50 Euler steps of the probability-flow ODE from
noise. Fix: the network and the loss over the whole batch.

Measured (energy distance between 1,024 Euler samples and 1,024 held-out moon points, lower
is better): 0.070 with the bug, 0.015 fixed; seeds + 1000: 0.034 vs 0.018.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._rf342 import Velocity, data, energy_distance, euler, gaussian_noise

TITLE = "`sbcfm` cannot perform well"
LINK = "https://github.com/atong01/conditional-flow-matching/issues/24"
EXPECTED = ("COLLATE_KEEPS_ONE_SAMPLE",)
STEPS = 400
SIGMA = 0.1


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, held = data()
    model = Velocity()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    criterion = torch.nn.MSELoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(train), steps, batch_size=256, seed=0):
            x1 = train[index]
            x0 = torch.randn_like(x1)
            t = torch.rand(len(x1), 1)
            mu_t = t * x1 + (1 - t) * x0
            sigma_t = SIGMA * torch.sqrt(t - t ** 2)
            x = mu_t + sigma_t * torch.randn_like(x0)
            ut = (1 - 2 * t) / (2 * t * (1 - t)) * (x - mu_t) + x1 - x0
            if fixed:
                loss = criterion(model(x, t), ut)
            else:
                loss = criterion(model(x[:1], t[:1]), ut[:1])   # BUG: row 0 of the batch
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.sample_energy_distance = energy_distance(euler(model, gaussian_noise()), held)
    return mon
