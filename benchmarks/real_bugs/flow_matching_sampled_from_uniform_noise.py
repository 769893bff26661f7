"""A flow-matching policy trained to carry standard Gaussian noise (``torch.randn``) to the
data, and sampled from ``torch.rand`` noise: uniform on [0, 1), mean 0.5 and spread 0.29
instead of mean 0 and spread 1. The field was only ever fitted along paths that start in
the Gaussian cloud; the sampler starts every trajectory in a small off-centre square, so
the Euler steps carry it to a squeezed, lopsided copy of the data. Training is untouched
(its loss is the twin's); the harm is all at inference.

Reported: "inconsistency about the initialization distribution of noise" -
https://github.com/HRI-EU/flow_matching/issues/7 (training draws ``x0 = torch.randn(...)``,
inference ``noise = torch.rand(...)``, "which is uniform distribution"; the authors:
"mixing the distributions could slightly degrade the output quality"). Here the two-moons
cloud of ``_rf342``, rectified-flow paths from Gaussian noise, an MLP v(x, t), Adam at 1e-3,
batches of 256, 50 Euler steps. Fix: draw the sampler's noise with ``torch.randn``.

Measured (energy distance between 1,024 Euler samples and 1,024 held-out moon points, lower
is better): 0.498 with the bug, 0.016 fixed; seeds + 1000: 0.552 vs 0.020.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._rf342 import Velocity, data, energy_distance, euler

TITLE = "inconsistency about the initialization distribution of noise"
LINK = "https://github.com/HRI-EU/flow_matching/issues/7"
EXPECTED = ("VAE_NOISE_NOT_STANDARD_NORMAL",)
STEPS = 400
SAMPLES = 1024


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, held = data()
    model = Velocity()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(train), steps, batch_size=256, seed=0):
            x1 = train[index]
            x0 = torch.randn_like(x1)
            t = torch.rand(len(x1), 1)
            xt = (1 - t) * x0 + t * x1
            loss = F.mse_loss(model(xt, t), x1 - x0)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    generator = torch.Generator().manual_seed(5)
    if fixed:
        noise = torch.randn(SAMPLES, 2, generator=generator)
    else:
        noise = torch.rand(SAMPLES, 2, generator=generator)    # BUG: uniform, not Gaussian
    mon.sample_energy_distance = energy_distance(euler(model, noise), held)
    return mon
