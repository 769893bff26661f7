"""A minimal rectified flow whose training path runs the wrong way: the noised point is
``noise * t + data * (1 - t)``, data at t = 0 and noise at t = 1, while the target is the
velocity from noise to data (``data - noise``) and the sampler starts from noise at t = 0
and steps forward to t = 1. The target is minus the path's own derivative, and the network
learns, at each t, the noise-to-data field of time 1 - t: the sampler then reads near the
noise the field fitted near the data and the other way round. The loss falls as in any
flow-matching run; the samples land off the moons.

Reported: "Bug in nano_flow.py" - https://github.com/lucidrains/rectified-flow-pytorch/issues/14
(first raised as an Euler step-size question; the maintainer then: "turns out i inverted the
direction from noise to data"; the fixed file lerps ``noise.lerp(data, t)``, read as
noise -> data from 0 to 1). Here the two-moons cloud of ``_rf342`` (4,096 training points),
an MLP velocity field v(x, t), Adam at 1e-3, batches of 256, 50 Euler steps from Gaussian
noise. Fix: ``x_t = (1 - t) * noise + t * data``, the path the target and the sampler assume.

Measured (energy distance between 1,024 Euler samples and 1,024 held-out moon points, lower
is better): 0.027 with the bug, 0.016 fixed; seeds + 1000: 0.072 vs 0.020. The harm on this
2-D toy is moderate (the mirrored field still carries noise towards the data); on the 8x8
digits, tried while choosing the data, it was 0.119 against 0.089 (seed 0).
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._rf342 import Velocity, data, energy_distance, euler, gaussian_noise

TITLE = "Bug in nano_flow.py"
LINK = "https://github.com/lucidrains/rectified-flow-pytorch/issues/14"
EXPECTED = ("VELOCITY_TARGET_REVERSED",)
STEPS = 400


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, held = data()
    model = Velocity()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(train), steps, batch_size=256, seed=0):
            x1 = train[index]
            noise = torch.randn_like(x1)
            t = torch.rand(len(x1))
            tt = t.unsqueeze(1)
            if fixed:
                x_t = (1 - tt) * noise + tt * x1
            else:
                x_t = noise * tt + x1 * (1 - tt)      # BUG: data at t = 0, noise at t = 1
            loss = F.mse_loss(model(x_t, t), x1 - noise)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.sample_energy_distance = energy_distance(euler(model, gaussian_noise()), held)
    return mon
