"""A first conditional-flow-matching loop (Lipman et al.'s Gaussian-to-data path with
sigma_min = 0.1, the target field u_t = (x1 - (1 - sigma) x_t) / (1 - (1 - sigma) t)) that
hands the velocity network the DATA point x1 with the time, ``model(cat([x1, t]))``, where
the point on the path x_t belongs. Given x1, the best answer is about x1 itself, so the loss
falls to the noise term's floor and training looks fine; at sampling there is no x1, the
network is fed the moving point and pushes it outward (dx/dt ~ x), and the samples never
take the data's shape.

Reported: "Problem training 8 gaussians to moons with TargetConditionalFlowMatcher" -
https://github.com/atong01/conditional-flow-matching/issues/126 (a newcomer working
through the tutorial notebooks: "the model is not training properly"; the posted loop
computes ``t, xt, ut`` and then calls ``model(torch.cat([x1, t[:, None]], dim=-1))``).
Here the two-moons cloud of ``_rf342`` as the data, standard Gaussian noise as the source
(the target-conditional path does not read the report's 8-gaussian x0), an MLP v(x, t),
Adam at 1e-3, batches of 256, 50 Euler steps from noise. Fix: ``model(xt, t)``.

Measured (energy distance between 1,024 Euler samples and 1,024 held-out moon points, lower
is better): 0.642 with the bug, 0.014 fixed; seeds + 1000: 0.559 vs 0.017.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._rf342 import Velocity, data, energy_distance, euler, gaussian_noise

TITLE = "Problem training 8 gaussians to moons with TargetConditionalFlowMatcher"
LINK = "https://github.com/atong01/conditional-flow-matching/issues/126"
EXPECTED = ("TARGETS_IN_INPUTS",)
STEPS = 400
SIGMA = 0.1


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, held = data()
    model = Velocity()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(train), steps, batch_size=256, seed=0):
            x1 = train[index]
            t = torch.rand(len(x1))
            tt = t.unsqueeze(1)
            scale = 1 - (1 - SIGMA) * tt
            xt = tt * x1 + scale * torch.randn_like(x1)
            ut = (x1 - (1 - SIGMA) * xt) / scale
            vt = model(xt if fixed else x1, t)       # BUG: the data point, not x_t
            loss = torch.mean((vt - ut) ** 2)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.sample_energy_distance = energy_distance(euler(model, gaussian_noise()), held)
    return mon
