"""A 2-D Fourier neural operator whose spectral layer keeps the block of Fourier
coefficients x_ft[:, :, :m1, :m2] only. After rfft2 the last axis holds the non-negative
wavenumbers alone, but the first axis holds both signs, its negative ones at the END
(-m1:); keeping the first m1 rows keeps the waves with k1 >= 0 and drops every wave with
k1 < 0 and k2 > 0 - the waves that run along the other diagonal. The layer can neither read
nor write them, so an operator that moves them (advection) is learned for half the
spectrum; the loss falls and levels off at the energy those waves carry.

Reported: "Use smarter truncation for Fourier Modes" -
https://github.com/SciML/FluxNeuralOperators.jl/issues/117 ("the first n_i fourier modes
are truncated. While this works well for most diffusion like problems, this fairs poorly
for advection dominated ones"); the same first-modes-only slice is flagged in review of
https://github.com/neuraloperator/neuraloperator/pull/714 ("keeps only the lowest
positive-index frequencies and drops the negative-frequency block"). Here periodic random
fields on a 16x16 grid (wavenumbers up to 3 along each axis, both diagonals), the operator
a periodic advection by (3, 2) cells, a 2-layer FNO (width 12, 4x4 modes, grid coordinates
appended, 1x1 skips, GELU), relative L2 loss, Adam 3e-3, 120 steps of 32 of 600 fields.

Fix: also weight the negative-wavenumber block x_ft[:, :, -m1:, :m2] with its own weights,
as the reference FNO2d does.

Measured (held-out relative L2 error, 200 new fields): 0.35 with the bug, 0.014 fixed;
seeds + 1000: 0.34 vs 0.013.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._operator341 import random_fields_2d, relative_l2

TITLE = "Use smarter truncation for Fourier Modes"
LINK = "https://github.com/SciML/FluxNeuralOperators.jl/issues/117"
# closest: no code names Fourier modes a layer never keeps; the loss ends far above zero
EXPECTED = ("LOSS_PLATEAU",)
STEPS = 120
SIZE = 16


class SpectralConv2d(nn.Module):
    def __init__(self, width, modes, both_signs=True):
        super().__init__()
        self.modes, self.both_signs = modes, both_signs
        scale = 1 / width
        self.upper = nn.Parameter(scale * torch.randn(width, width, modes, modes,
                                                      dtype=torch.cfloat))
        if both_signs:
            self.lower = nn.Parameter(scale * torch.randn(width, width, modes, modes,
                                                          dtype=torch.cfloat))

    def forward(self, x):                      # (batch, width, size, size)
        m = self.modes
        x_ft = torch.fft.rfft2(x)
        out = torch.zeros_like(x_ft)
        out[:, :, :m, :m] = torch.einsum("bixy,ioxy->boxy", x_ft[:, :, :m, :m], self.upper)
        if self.both_signs:                    # BUG (unfixed): the k1 < 0 block is left out
            out[:, :, -m:, :m] = torch.einsum("bixy,ioxy->boxy", x_ft[:, :, -m:, :m],
                                              self.lower)
        return torch.fft.irfft2(out, s=x.shape[-2:])


class FNO2d(nn.Module):
    def __init__(self, width=12, modes=4, layers=2, both_signs=True):
        super().__init__()
        self.lift = nn.Linear(3, width)
        self.spectral = nn.ModuleList([SpectralConv2d(width, modes, both_signs)
                                       for _ in range(layers)])
        self.skip = nn.ModuleList([nn.Conv2d(width, width, 1) for _ in range(layers)])
        self.head = nn.Sequential(nn.Linear(width, 64), nn.GELU(), nn.Linear(64, 1))

    def forward(self, u):                      # (batch, size, size)
        axis = torch.linspace(0, 1, u.shape[-1])
        gx, gy = torch.meshgrid(axis, axis, indexing="ij")
        grid = torch.stack([gx, gy], -1).expand(len(u), -1, -1, -1)
        h = self.lift(torch.cat([u[..., None], grid], -1)).permute(0, 3, 1, 2)
        for i, (spec, skip) in enumerate(zip(self.spectral, self.skip)):
            h = spec(h) + skip(h)
            if i < len(self.spectral) - 1:
                h = F.gelu(h)
        return self.head(h.permute(0, 2, 3, 1)).squeeze(-1)


def advected(u):
    return torch.roll(u, shifts=(3, 2), dims=(1, 2))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    u = random_fields_2d(600, size=SIZE, seed=0)
    u_test = random_fields_2d(200, size=SIZE, seed=1)
    s, s_test = advected(u), advected(u_test)
    model = FNO2d(both_signs=fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(u), steps, batch_size=32, seed=0):
            optimizer.zero_grad()
            loss = relative_l2(model(u[index]), s[index])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        mon.held_out_relative_l2 = round(relative_l2(model(u_test), s_test).item(), 3)
    return mon
