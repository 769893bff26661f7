"""A flow-matching model reads its continuous time t in [0, 1] through the sinusoidal
timestep embedding written for DDPM's integer steps (0..999), with its maximum period of
10,000 kept. The angles are ``t * 10000 ** (-k / half)``: at most 1 radian on the fastest
frequency and below 0.01 on most of the others, so the cosines sit at 1 and the sines are
tiny straight lines in t. The embedding barely changes across the whole trajectory, the
velocity network is left nearly blind to where on the path it is, the loss still falls and
nothing errors; the samples integrated with it come out off the data.

Reported: "Fix timestep embedding scale for continuous timesteps (0-1 range)" -
https://github.com/ArchiMickey/Just-a-DiT/pull/9 (the DiT's timestep embedder kept
``max_period=10000`` from diffusion code while the flow-matching trainer feeds t in [0, 1],
which "results in almost constant embeddings under this scale"; the author of the fix saw
noticeably worse FID than UNet baselines and rescaled the timesteps for the embedding).
Here: rectified flow on the 8x8 digits (x_t = (1 - t) x_0 + t noise, velocity target noise
- x_0), an MLP reading x_t and a 32-wide sinusoidal embedding of t, Adam, 50 Euler steps from
noise to sample. Fix: embed ``1000 * t`` (the scale the embedding was written for).

Measured (2,000 steps, batch 64; velocity MSE on 512 held-out digits at uniformly drawn t
with a fixed generator, and the mean distance from 256 Euler samples to their nearest
held-out digit): seed 0, velocity MSE 0.719 for the bug against 0.687 for the fixed twin,
samples 3.24 from the data against 3.20; seeds shifted by 1000, velocity MSE 0.715 against
0.691, samples 3.34 against 3.32. The harm at this scale is in the velocity field (a steady
4 to 5 percent worse at both seeds); the 8x8 samples' nearest-digit distance barely moves.
"""
import math

import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._diff175 import data, sample_distance

TITLE = "Fix timestep embedding scale for continuous timesteps (0-1 range)"
LINK = "https://github.com/ArchiMickey/Just-a-DiT/pull/9"
EXPECTED = ("TIMESTEP_EMBEDDING_COLLAPSED",)
STEPS = 2000
DIM = 32
MAX_PERIOD = 10_000


def embed(t):
    half = DIM // 2
    freqs = torch.exp(-math.log(MAX_PERIOD) * torch.arange(half) / half)
    angles = t.unsqueeze(1) * freqs
    return torch.cat([torch.cos(angles), torch.sin(angles)], dim=1)


class Velocity(nn.Module):
    def __init__(self, time_scale):
        super().__init__()
        self.time_scale = time_scale
        self.net = nn.Sequential(nn.Linear(64 + DIM, 128), nn.SiLU(), nn.Linear(128, 128),
                                 nn.SiLU(), nn.Linear(128, 64))

    def forward(self, x_t, t):
        return self.net(torch.cat([x_t, embed(self.time_scale * t)], dim=1))


def velocity_error(model, x0, seed=1):
    generator = torch.Generator().manual_seed(seed)
    t = torch.rand(len(x0), generator=generator)
    noise = torch.randn(x0.shape, generator=generator)
    x_t = (1 - t).unsqueeze(1) * x0 + t.unsqueeze(1) * noise
    with torch.no_grad():
        return F.mse_loss(model(x_t, t), noise - x0).item()


def sample(model, n=256, euler_steps=50, seed=2):
    generator = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 64, generator=generator)
    with torch.no_grad():
        for i in range(euler_steps, 0, -1):
            t = torch.full((n,), i / euler_steps)
            x = x - model(x, t) / euler_steps
    return x.clamp(-1, 1)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x_train, y_train, x_held, _ = data()
    model = Velocity(1000.0 if fixed else 1.0)     # BUG: t in [0, 1] at a 10,000 period
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for x0, _ in batches(x_train, y_train, steps):
            t = torch.rand(len(x0))
            noise = torch.randn_like(x0)
            x_t = (1 - t).unsqueeze(1) * x0 + t.unsqueeze(1) * noise
            loss = F.mse_loss(model(x_t, t), noise - x0)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.velocity_error = velocity_error(model, x_held)
    mon.sample_distance = sample_distance(sample(model), x_held)
    return mon
