"""A diffusion denoiser's sinusoidal timestep embedding takes its sines and cosines along the
batch axis: ``emb[::2] = emb[::2].sin(); emb[1::2] = emb[1::2].cos()`` on a (batch, dim)
tensor puts sin(t * f) in the even ROWS and cos(t * f) in the odd rows, where the even and
odd COLUMNS were meant (``emb[:, ::2]`` / ``emb[:, 1::2]``). Every sample's embedding then
depends on whether it sits at an even or odd place in the batch: the same (x_t, t) gets a
different conditioning at a different place, and the network cannot tell which code it got.

Reported: "Probable Error in Computing Positional Encodings" -
https://github.com/gmongaras/Diffusion_models_from_scratch/issues/10 (the reporter: it has
to be ``embeddings[:, ::2] = embeddings[:, ::2].sin()``; the author: "Nice catch! Looks
like I got the indexing wrong here, encoding the batch dimension as the "time" dimension. I
suppose that means the position in the diffusion process becomes useless during
training"). Here a DDPM-style noise predictor on the 8x8 digits (an MLP reading x_t and a
16-wide sinusoidal embedding of t, 100 steps of a linear beta schedule). Fix: index the
feature axis, ``emb[:, ::2]`` and ``emb[:, 1::2]``.

Measured (400 steps, 512 held-out digits noised at random steps with a fixed generator):
the noise-prediction error (MSE against the true noise) is 0.364 for the bug, 0.348 for
the fixed twin: the sines of the even rows and the cosines of the odd rows each still
carry t, so the network learns a compromise of two codes, a modest loss at this size.
"""
import math

import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "Probable Error in Computing Positional Encodings"
LINK = "https://github.com/gmongaras/Diffusion_models_from_scratch/issues/10"
EXPECTED = ("BATCH_MIXING",)
STEPS = 400
T = 100
BETAS = torch.linspace(1e-4, 0.05, T)
ALPHA_BAR = torch.cumprod(1 - BETAS, dim=0)
EMBED = 16


class NoisePredictor(nn.Module):
    """Reads the noised image and a sinusoidal embedding of the diffusion step."""

    def __init__(self, fixed):
        super().__init__()
        self.fixed = fixed
        self.net = nn.Sequential(nn.Linear(64 + EMBED, 128), nn.SiLU(), nn.Linear(128, 128),
                                 nn.SiLU(), nn.Linear(128, 64))
        self.register_buffer("freqs", torch.exp(-math.log(1000.0) * torch.arange(EMBED)
                                                // 2 * 2 / EMBED))

    def embed(self, t):
        emb = t.float().unsqueeze(1) * self.freqs.unsqueeze(0)          # (batch, EMBED)
        if self.fixed:
            emb[:, ::2] = emb[:, ::2].sin()
            emb[:, 1::2] = emb[:, 1::2].cos()
        else:
            emb[::2] = emb[::2].sin()               # BUG: rows (samples), not columns
            emb[1::2] = emb[1::2].cos()
        return emb

    def forward(self, x_t, t):
        return self.net(torch.cat([x_t, self.embed(t)], dim=1))


def noised(x0, t, noise):
    a = ALPHA_BAR[t].unsqueeze(1)
    return a.sqrt() * x0 + (1 - a).sqrt() * noise


def noise_error(model, x0, seed=1):
    generator = torch.Generator().manual_seed(seed)
    t = torch.randint(0, T, (len(x0),), generator=generator)
    noise = torch.randn(x0.shape, generator=generator)
    with torch.no_grad():
        return F.mse_loss(model(noised(x0, t, noise), t), noise).item()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    x = x * 2 - 1                                   # pixels in [-1, 1], as DDPM scales them
    train, held_out = x[:-512], x[-512:]
    model = NoisePredictor(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for x0, _ in batches(train, y[:-512], steps):
            t = torch.randint(0, T, (len(x0),))
            noise = torch.randn_like(x0)
            loss = F.mse_loss(model(noised(x0, t, noise), t), noise)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.noise_error = noise_error(model, held_out)
    return mon
