"""A DDPM denoiser's sinusoidal timestep table is built by applying ``sin`` and ``cos`` to
ROWS of the (steps, dim) angle table (``table[evens] = sin(table[evens])``, then
``table[1 - evens] = cos(table[evens])``) where they belong on its COLUMNS. Rows are
timesteps, so the even timesteps get sines of every frequency and the odd ones are
overwritten through the negative indices ``1 - evens`` = 1, -1, -3, ...: step T-1 gets
``cos(sin(angles of step 2))``, step T-3 those of step 4, and so on. The noisiest odd steps
end up with near-identical embeddings close to all ones (the angles of small steps are
tiny), half the schedule's steps look alike to the network, and the table is a fixed buffer,
so nothing errors and the loss falls, only slower and to a worse floor.

Reported: "positional encoding" -
https://github.com/BrianPulfer/PapersReimplementations/issues/9 (the DDPM reimplementation's
``sinusoidal_embedding`` masked rows with ``torch.arange(0, n, 2)``; the reporter plotted
``E @ E.T`` and found nothing like the banded similarity of a sinusoidal encoding, and
rewrote it on columns, ``embedding[:, ::2] = sin(t * w[:, ::2])`` and
``embedding[:, 1::2] = cos(t * w[:, ::2])``; the maintainer: "You are absolutely right,
there has been a mistake in the way positional embeddings were generated" and fixed it;
the same function lives on in many copies of the tutorial). Here: an MLP noise predictor on
the 8x8 digits reading x_t and a 32-wide fixed table of the step, 100 steps of a linear beta
schedule, Adam. Fix: sin and cos on the table's columns.

Measured (3,000 steps, batch 64; noise-prediction MSE on 512 held-out digits noised at
uniformly drawn steps with a fixed generator, and the mean distance from 256 ancestral
samples to their nearest held-out digit, 2.34 for held-out digits to the training set and
7.8 for clipped noise): seed 0, noise MSE 0.324 for the bug against 0.311 for the fixed
twin, samples 3.69 from the data against 3.35; seeds shifted by 1000, noise MSE 0.325
against 0.310, samples 3.93 against 3.35. The bug run's training loss falls all the way,
just to a higher floor.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._diff175 import (T, data, noise_error, noised, sample,
                                            sample_distance)

TITLE = "positional encoding"
LINK = "https://github.com/BrianPulfer/PapersReimplementations/issues/9"
EXPECTED = ("TIMESTEP_EMBEDDING_COLLAPSED",)
STEPS = 3000
DIM = 32


def timestep_table(fixed):
    angles = torch.tensor([[i / 10_000 ** (2 * j / DIM) for j in range(DIM)]
                           for i in range(T)])
    if fixed:
        table = torch.zeros(T, DIM)
        table[:, ::2] = torch.sin(angles[:, ::2])
        table[:, 1::2] = torch.cos(angles[:, ::2])
        return table
    evens = torch.arange(0, T, 2)                  # BUG: timestep rows, not feature columns
    angles[evens] = torch.sin(angles[evens])
    angles[1 - evens] = torch.cos(angles[evens])
    return angles


class Denoiser(nn.Module):
    def __init__(self, table):
        super().__init__()
        self.register_buffer("table", table)
        self.net = nn.Sequential(nn.Linear(64 + DIM, 128), nn.SiLU(), nn.Linear(128, 128),
                                 nn.SiLU(), nn.Linear(128, 64))

    def forward(self, x_t, t):
        return self.net(torch.cat([x_t, self.table[t]], dim=1))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x_train, y_train, x_held, _ = data()
    model = Denoiser(timestep_table(fixed))
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for x0, _ in batches(x_train, y_train, steps):
            t = torch.randint(0, T, (len(x0),))
            noise = torch.randn_like(x0)
            loss = F.mse_loss(model(noised(x0, t, noise), t), noise)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.noise_error = noise_error(model, x_held)
    mon.sample_distance = sample_distance(sample(model), x_held)
    return mon
